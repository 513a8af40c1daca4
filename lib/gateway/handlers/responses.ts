import { isGatewayError, type GatewayError } from "@/lib/canonical/gateway-error";
import { messageText } from "@/lib/canonical/request";
import { env } from "@/lib/env";
import { openAIFormat } from "@/lib/formats/openai";
import { openAIErrorBody } from "@/lib/formats/openai/render-error";
import { parseResponsesBody, toCanonical, type ParsedResponsesRequest } from "@/lib/formats/responses/parse-request";
import { newEnvelope, renderResponse } from "@/lib/formats/responses/render-response";
import { renderResponsesStream } from "@/lib/formats/responses/render-stream";
import { translatedChat } from "@/lib/gateway/call-chat";
import { runCall } from "@/lib/gateway/call-pipeline";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import { withApiKey } from "@/lib/gateway/with-api-key";
import { providers } from "@/lib/providers/registry";
import { encodeSse } from "@/lib/sse/encode-sse";

/**
 * Channels (by channel and upstream model) that answered 404 on /responses: OpenAI-
 * compatible servers with chat completions only. They are served by translation from then on.
 */
const withoutResponses = new Set<string>();

/** The Responses API's own stream error event, for a relayed stream that breaks. */
function renderStreamError(error: GatewayError): string {
  const body = openAIErrorBody(error).error;
  return encodeSse(JSON.stringify({ type: "error", code: body.code ?? body.type, message: body.message, param: body.param, sequence_number: 0 }), "error");
}

/**
 * POST /v1/responses: relayed to upstreams that serve it, translated through the
 * canonical model for every other (chat-only OpenAI-compatible servers, Anthropic, Gemini).
 */
export const handleResponses = withApiKey(openAIFormat, "/v1/responses", async (context) => {
  const body = parseResponsesBody(await readJsonBody(context.request));
  const stream = body.stream === true;
  let translation: ParsedResponsesRequest | undefined;
  // Translating may refuse what only OpenAI can run (built-in tools): only when it is needed.
  const translate = () => {
    if (!translation) {
      translation = toCanonical(body);
      context.log.warnings.push(...translation.warnings);
    }
    return translation;
  };
  const promptText = JSON.stringify(body.input ?? "") + (body.instructions ?? "");
  context.log.promptText = () => (translation ? [translation.chat.system ?? "", ...translation.chat.messages.map(messageText)].join("\n") : promptText);
  return runCall(context, {
    operation: "responses",
    model: body.model,
    stream,
    estimate: { inputTokens: Math.ceil(promptText.length / 3) + 16, outputTokens: body.max_output_tokens ?? env.QUOTA_DEFAULT_OUTPUT_TOKENS },
    supports: (provider) => provider.relays?.["openai:responses"] !== undefined || provider.chat !== undefined,
    renderStreamError,
    async attempt(channel, call, hooks) {
      const provider = providers[channel.type];
      const relay = provider.relays?.["openai:responses"];
      const key = `${channel.id}\u0000${call.upstreamModel}`;
      if (relay && !withoutResponses.has(key)) {
        try {
          return await relay({ body, stream, includeUsage: true, clientHeaders: context.request.headers }, call);
        } catch (error) {
          if (!isGatewayError(error) || error.upstreamStatus !== 404) throw error;
          withoutResponses.add(key);
          call.warnings.push(`channel ${channel.name} has no /responses; translated through chat completions`);
        }
      }
      const { chat, customTools } = translate();
      const envelope = newEnvelope(body.model, body, customTools);
      return translatedChat(provider, chat, call, hooks, {
        renderResponse: (response) => renderResponse(envelope, response),
        renderStream: (events) => renderResponsesStream(events, envelope),
      });
    },
  });
});
