import { env } from "@/lib/env";
import { openAIFormat } from "@/lib/formats/openai";
import { parseChatCompletionRequest } from "@/lib/formats/openai/parse-request";
import { renderChatCompletion } from "@/lib/formats/openai/render-response";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { callChat } from "@/lib/gateway/call-chat";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import { withApiKey } from "@/lib/gateway/with-api-key";
import { requestSession } from "@/lib/routing/session-affinity";

/** POST /v1/chat/completions */
export const handleChatCompletions = withApiKey(openAIFormat, "/v1/chat/completions", async (context) => {
  const parsed = parseChatCompletionRequest(await readJsonBody(context.request));
  // The same bytes readJsonBody parsed (the request keeps them): relays forward them.
  const bytes = parsed.asSent ? await context.request.body(env.MAX_BODY_BYTES) : undefined;
  if ((parsed.body.n ?? 1) > 1) context.call.warnings.push("n > 1 is only honoured by OpenAI-type upstreams");
  return callChat(context, {
    chat: parsed.chat,
    session: requestSession({ promptCacheKey: (parsed.body as Record<string, unknown>).prompt_cache_key, headers: context.request.headers }),
    relay: {
      body: parsed.body,
      bytes,
      stream: parsed.chat.stream,
      includeUsage: parsed.includeUsage,
      clientHeaders: context.request.headers,
    },
    renderResponse: renderChatCompletion,
    renderStream: (events) => renderChatCompletionStream(events, { includeUsage: parsed.includeUsage, fallbackModel: parsed.chat.model }),
  });
});
