import { env } from "@/lib/env";
import { anthropicFormat } from "@/lib/formats/anthropic";
import { parseMessagesRequest } from "@/lib/formats/anthropic/parse-request";
import { renderMessage } from "@/lib/formats/anthropic/render-response";
import { renderMessageStream } from "@/lib/formats/anthropic/render-stream";
import { callChat } from "@/lib/gateway/call-chat";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import { withApiKey } from "@/lib/gateway/with-api-key";
import { requestSession } from "@/lib/routing/session-affinity";

/** POST /v1/messages (Anthropic Messages API). */
export const handleMessages = withApiKey(anthropicFormat, "/v1/messages", async (context) => {
  const parsed = parseMessagesRequest(await readJsonBody(context.request));
  context.call.warnings.push(...parsed.warnings);
  // The schema fills nothing in, so the bytes readJsonBody parsed say what `body` says.
  const bytes = await context.request.body(env.MAX_BODY_BYTES);
  return callChat(context, {
    chat: parsed.chat,
    session: requestSession({ headers: context.request.headers, anthropicUserId: parsed.body.metadata?.user_id }),
    relay: { body: parsed.body, bytes, stream: parsed.chat.stream, includeUsage: true, clientHeaders: context.request.headers },
    renderResponse: (response) => renderMessage(response, parsed.chat.model),
    renderStream: (events) => renderMessageStream(events, { model: parsed.chat.model }),
  });
});
