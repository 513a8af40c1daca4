import { openAIFormat } from "@/lib/formats/openai";
import { parseChatCompletionDeferred, parseChatCompletionRequest, TOOL_CALL_TYPES } from "@/lib/formats/openai/parse-request";
import { renderChatCompletion } from "@/lib/formats/openai/render-response";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { callChat } from "@/lib/gateway/call-chat";
import { DEFER_CONVERSATION_ABOVE_BYTES, readJsonRequest } from "@/lib/gateway/read-json-body";
import { withApiKey } from "@/lib/gateway/with-api-key";
import { requestSession } from "@/lib/routing/session-affinity";

/** POST /v1/chat/completions */
export const handleChatCompletions = withApiKey(openAIFormat, "/v1/chat/completions", async (context) => {
  const json = await readJsonRequest(context.request, TOOL_CALL_TYPES);
  // An agent's turn is relayed without parsing its conversation; a small request is validated whole.
  const deferred = json.bytes.length > DEFER_CONVERSATION_ABOVE_BYTES ? parseChatCompletionDeferred(json) : undefined;
  const parsed = deferred ?? parseChatCompletionRequest(json.value());
  // The bytes parsed, when the schema filled nothing in: relays forward them.
  const bytes = parsed.asSent ? json.bytes : undefined;
  if ((parsed.body.n ?? 1) > 1) context.call.warnings.push("n > 1 is only honoured by OpenAI-type upstreams");
  return callChat(context, {
    chat: parsed.chat,
    conversationBytes: deferred?.conversationBytes,
    session: requestSession({ promptCacheKey: (parsed.body as Record<string, unknown>).prompt_cache_key, headers: context.request.headers }),
    relay: {
      body: parsed.body,
      bytes,
      layout: json.layout,
      stream: parsed.chat.stream,
      includeUsage: parsed.includeUsage,
      clientHeaders: context.request.headers,
    },
    renderResponse: renderChatCompletion,
    renderStream: (events) => renderChatCompletionStream(events, { includeUsage: parsed.includeUsage, fallbackModel: parsed.chat.model }),
  });
});
