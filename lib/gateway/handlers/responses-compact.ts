import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import { openAIFormat } from "@/lib/formats/openai";
import { compactionRequest, inputList, keptUserMessages, openSealedCompactions, renderCompactedResponse } from "@/lib/formats/responses/compaction";
import { parseResponsesBody, toCanonical } from "@/lib/formats/responses/parse-request";
import type { ResponsesRequest } from "@/lib/formats/responses/schema";
import { estimatePromptTokens, runCall } from "@/lib/gateway/call-pipeline";
import { compactionSeals } from "@/lib/gateway/compaction-seals";
import { countPromptTokens } from "@/lib/gateway/count-prompt-tokens";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import { withApiKey, type GatewayContext } from "@/lib/gateway/with-api-key";
import { ownerOf, type StoredResponseRecord } from "@/lib/responses/response-store";

/** The conversation a request names: a translated predecessor's history before its input (a relayed one stays with its upstream). */
async function withHistory(context: GatewayContext, requested: ResponsesRequest): Promise<{ body: ResponsesRequest; previous: StoredResponseRecord | null }> {
  const id = requested.previous_response_id;
  if (!id) return { body: requested, previous: null };
  const previous = await context.runtime.responses.find(ownerOf(context.token.subject), id);
  if (!previous) throw new GatewayError("not_found", `Response with id '${id}' not found.`, { param: "previous_response_id", code: "previous_response_not_found" });
  if (previous.native) return { body: requested, previous };
  const input = [...(previous.conversation ?? []), ...inputList(requested.input)] as ResponsesRequest["input"];
  return { body: { ...requested, input, previous_response_id: undefined }, previous };
}

/**
 * POST /v1/responses/compact: OpenAI's own compaction where the channel serves it (its
 * opaque item relayed untouched); for every other upstream the gateway asks the model for a
 * summary and answers the user messages kept and one compaction item it sealed.
 */
export const handleCompact = withApiKey(openAIFormat, "/v1/responses/compact", async (context) => {
  const requested = parseResponsesBody(await readJsonBody(context.request));
  const seals = compactionSeals(context);
  const { body: merged, previous } = await withHistory(context, requested);
  // The gateway's own items become their summaries for any upstream (OpenAI cannot read them either).
  const opened = openSealedCompactions(merged.input, seals.open);
  const body: ResponsesRequest = { ...(opened ? { ...merged, input: opened } : merged), stream: undefined };
  const promptText = JSON.stringify(body.input ?? "") + (body.instructions ?? "");
  context.call.promptText = () => promptText;
  const unchanged = merged === requested && !opened && requested.stream === undefined;
  const bytes = unchanged ? await context.request.body(env.MAX_BODY_BYTES) : undefined;
  const capabilities = context.runtime.capabilities;
  return runCall(context, {
    operation: "compact",
    model: requested.model,
    stream: false,
    pinnedChannelId: previous?.native ? (previous.channelId ?? undefined) : undefined,
    estimate: { inputTokens: estimatePromptTokens(promptText), outputTokens: env.QUOTA_DEFAULT_OUTPUT_TOKENS },
    renderStreamError: () => undefined,
    call: {
      model: body.model,
      relay: { body, bytes, stream: false, includeUsage: false, clientHeaders: context.request.headers },
      continuesRelayed: previous?.native === true,
      lacksResponses: {
        lacks: (channelId, model) => capabilities.lacks(channelId, model, "compact"),
        learn: (channelId, model) => capabilities.learnMissing(channelId, model, "compact"),
      },
      translate() {
        const parsed = toCanonical(body);
        context.call.warnings.push(...parsed.warnings);
        const kept = keptUserMessages(body.input);
        return {
          chat: compactionRequest(parsed.chat),
          render: {
            renderResponse: (answer) => renderCompactedResponse(answer, kept, seals.seal),
            renderStream: () => {
              throw new Error("a compaction is never streamed");
            },
          },
        };
      },
    },
  });
});

/**
 * POST /v1/responses/input_tokens (the SDK's `responses.inputTokens.count`): the request's
 * input as each channel's count-tokens member counts it: OpenAI's own /responses/input_tokens,
 * Anthropic's, Gemini's and Bedrock's counting endpoints, the tokenizer's estimate where the
 * upstream has none. Counting spends no quota.
 */
export const handleInputTokens = withApiKey(openAIFormat, "/v1/responses/input_tokens", async (context) => {
  const requested = parseResponsesBody(await readJsonBody(context.request));
  const { body: merged } = await withHistory(context, requested);
  const opened = openSealedCompactions(merged.input, compactionSeals(context).open);
  const body: ResponsesRequest = opened ? { ...merged, input: opened } : merged;
  // For the estimate: OpenAI's opaque compaction items and a trigger have no text to count.
  const input = inputList(body.input).filter((item) => item.type !== "compaction" && item.type !== "compaction_trigger");
  const { chat } = toCanonical({ ...body, input: input as ResponsesRequest["input"], stream: false });
  const bytes = body === requested ? await context.request.body(env.MAX_BODY_BYTES) : undefined;
  const capabilities = context.runtime.capabilities;
  return countPromptTokens(context, chat, (count) => ({ object: "response.input_tokens", input_tokens: count }), {
    relay: { body, bytes, stream: false, includeUsage: false, clientHeaders: context.request.headers },
    lacksCounting: {
      lacks: (channelId, model) => capabilities.lacks(channelId, model, "count-tokens"),
      learn: (channelId, model) => capabilities.learnMissing(channelId, model, "count-tokens"),
    },
  });
});
