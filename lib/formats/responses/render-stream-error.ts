import type { GatewayError } from "@/lib/canonical/gateway-error";
import { openAIErrorBody } from "@/lib/formats/openai/render-error";
import { encodeSse } from "@/lib/sse/encode-sse";

/**
 * The `error` event that ends a Responses stream under way, whether the stream was relayed
 * or translated: the OpenAI SDKs raise it as an APIError carrying this code and message.
 * (`response.failed` stays the upstream's own word for a response that failed.)
 */
export function renderResponsesStreamError(error: GatewayError, sequenceNumber = 0): string {
  const body = openAIErrorBody(error).error;
  return encodeSse(JSON.stringify({ type: "error", code: body.code ?? body.type, message: body.message, param: body.param, sequence_number: sequenceNumber }), "error");
}
