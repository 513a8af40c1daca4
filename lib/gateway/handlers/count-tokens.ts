import { anthropicFormat } from "@/lib/formats/anthropic";
import { toCanonical } from "@/lib/formats/anthropic/parse-request";
import { countTokensRequestSchema } from "@/lib/formats/anthropic/schema";
import { validationError } from "@/lib/formats/validation-error";
import { countPromptTokens } from "@/lib/gateway/count-prompt-tokens";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import { withApiKey } from "@/lib/gateway/with-api-key";

/** POST /v1/messages/count_tokens (Claude Code calls it before long requests). */
export const handleCountTokens = withApiKey(anthropicFormat, "/v1/messages/count_tokens", async (context) => {
  const result = countTokensRequestSchema.safeParse(await readJsonBody(context.request));
  if (!result.success) throw validationError(result.error);
  const chat = toCanonical(result.data, context.call.warnings);
  return countPromptTokens(context, chat, (count) => ({ input_tokens: count }));
});
