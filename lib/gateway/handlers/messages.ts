import { anthropicFormat } from "@/lib/formats/anthropic";
import { parseMessagesRequest, parseMessagesRequestDeferred } from "@/lib/formats/anthropic/parse-request";
import { renderMessage } from "@/lib/formats/anthropic/render-response";
import { renderMessageStream } from "@/lib/formats/anthropic/render-stream";
import { callChat } from "@/lib/gateway/call-chat";
import { DEFER_CONVERSATION_ABOVE_BYTES, readJsonRequest } from "@/lib/gateway/read-json-body";
import { withApiKey } from "@/lib/gateway/with-api-key";
import { requestSession } from "@/lib/routing/session-affinity";

/** POST /v1/messages (Anthropic Messages API). */
export const handleMessages = withApiKey(anthropicFormat, "/v1/messages", async (context) => {
  const json = await readJsonRequest(context.request);
  // An agent's turn is relayed without parsing its conversation; a small request is validated whole.
  const deferred = json.bytes.length > DEFER_CONVERSATION_ABOVE_BYTES ? parseMessagesRequestDeferred(json, context.call.warnings) : undefined;
  const parsed = deferred ?? parseMessagesRequest(json.value());
  context.call.warnings.push(...parsed.warnings);
  return callChat(context, {
    chat: parsed.chat,
    conversationBytes: deferred?.conversationBytes,
    session: requestSession({ headers: context.request.headers, anthropicUserId: parsed.body.metadata?.user_id }),
    // The schema fills nothing in, so the bytes say what `body` says.
    relay: { body: parsed.body, bytes: json.bytes, layout: json.layout, stream: parsed.chat.stream, includeUsage: true, clientHeaders: context.request.headers },
    renderResponse: (response) => renderMessage(response, parsed.chat.model),
    renderStream: (events) => renderMessageStream(events, { model: parsed.chat.model }),
  });
});
