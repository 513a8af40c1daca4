import { GatewayError } from "@/lib/canonical/gateway-error";
import { geminiFormat } from "@/lib/formats/gemini";
import { camelizeGeminiRequest } from "@/lib/formats/gemini/normalize-keys";
import { parseGenerateContentRequest } from "@/lib/formats/gemini/parse-request";
import { renderGenerateContentResponse } from "@/lib/formats/gemini/render-response";
import { renderGenerateContentStream } from "@/lib/formats/gemini/render-stream";
import { renderGeminiStreamError } from "@/lib/formats/gemini/render-error";
import { parseGeminiEmbedRequest, renderGeminiEmbeddings, type GeminiEmbedMethod } from "@/lib/formats/gemini/embeddings";
import { callChat } from "@/lib/gateway/call-chat";
import { requestSession } from "@/lib/routing/session-affinity";
import { estimatePromptTokens, runCall } from "@/lib/gateway/call-pipeline";
import { countPromptTokens } from "@/lib/gateway/count-prompt-tokens";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import { withApiKey, type GatewayContext } from "@/lib/gateway/with-api-key";
import { collectBody, jsonResponse, type ApiRequest, type ApiResponse } from "@/lib/canonical/api-types";
import { safeJson } from "@/lib/canonical/json";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import { nearestNames } from "@/lib/routing/nearest-names";
import { listedModels } from "./listed-models";

/**
 * The version segment the client called, `/v1beta` or `/v1`: Google serves the same methods
 * under both (@google/genai 2 calls v1beta, 3 calls v1), and the log records what was called.
 */
export function geminiVersion(request: ApiRequest): "/v1beta" | "/v1" {
  return request.url.pathname.startsWith("/v1beta/") ? "/v1beta" : "/v1";
}

/** POST /{v1beta|v1}/models/{model}:{generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents} */
export const handleGeminiAction = withApiKey(
  geminiFormat,
  (request) => `${geminiVersion(request)}/models`,
  async (context) => {
    const path = context.request.params.path ?? "";
    const colon = path.lastIndexOf(":");
    const model = (colon > 0 ? path.slice(0, colon) : path).replace(/^models\//, "");
    const method = colon > 0 ? path.slice(colon + 1) : "";
    context.log.endpoint = `${geminiVersion(context.request)}/models/{model}:${method}`;
    switch (method) {
      case "generateContent":
        return generate(context, model, false);
      case "streamGenerateContent":
        return generate(context, model, true);
      case "countTokens": {
        const json = camelizeGeminiRequest(await readJsonBody(context.request)) as Record<string, unknown> | null;
        // countTokens takes either {contents} or {generateContentRequest: {...}}.
        const inner = (typeof json === "object" && json !== null && (json.generateContentRequest as Record<string, unknown> | undefined)) || json;
        const parsed = parseGenerateContentRequest(inner, model, false);
        return countPromptTokens(context, parsed.chat, (count) => ({ totalTokens: count }));
      }
      case "embedContent":
      case "batchEmbedContents":
        return embed(context, model, method);
      default:
        throw new GatewayError("not_found", `Method '${method}' is not supported for models.`, { code: "unknown_method" });
    }
  },
);

/** Gemini's embedding methods on the embeddings operation every embedding channel serves, answered in Gemini's shape. */
async function embed(context: GatewayContext, model: string, method: GeminiEmbedMethod): Promise<ApiResponse> {
  const { inputs, dimensions } = parseGeminiEmbedRequest(method, camelizeGeminiRequest(await readJsonBody(context.request)), model);
  const promptText = inputs.join("\n");
  context.call.promptText = () => promptText;
  const body = { model, input: inputs, encoding_format: "float", ...(dimensions ? { dimensions } : {}) };
  const answer = await runCall(context, {
    operation: "embeddings",
    model,
    stream: false,
    estimate: { inputTokens: estimatePromptTokens(promptText), outputTokens: 0 },
    renderStreamError: () => undefined,
    call: { body, model, stream: false, includeUsage: false, clientHeaders: context.request.headers },
  });
  return jsonResponse(answer.status, renderGeminiEmbeddings(method, await answerJson(answer)));
}

async function answerJson(answer: ApiResponse): Promise<unknown> {
  const { body } = answer;
  const text =
    body === null ? "" : typeof body === "string" ? body : body instanceof Uint8Array ? Buffer.from(body).toString("utf8") : (await collectBody(asBytes(body))).toString("utf8");
  return safeJson(text);
}

async function* asBytes(source: AsyncIterable<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) yield typeof chunk === "string" ? Buffer.from(chunk) : chunk;
}

async function generate(context: GatewayContext, model: string, stream: boolean) {
  const parsed = parseGenerateContentRequest(await readJsonBody(context.request), model, stream);
  context.call.warnings.push(...parsed.warnings);
  const sse = context.request.url.searchParams.get("alt") === "sse";
  const response = await callChat(context, {
    chat: parsed.chat,
    session: requestSession({ headers: context.request.headers }),
    relay: {
      body: parsed.body,
      stream,
      includeUsage: true,
      clientHeaders: context.request.headers,
      geminiAction: { method: stream ? "streamGenerateContent" : "generateContent", alt: sse ? "sse" : undefined },
    },
    renderResponse: (result) => renderGenerateContentResponse(result, model),
    renderStream: (events) => renderGenerateContentStream(events, { model, sse }),
    renderStreamError: (error) => renderGeminiStreamError(error, { sse }),
  });
  // Without alt=sse the stream is one JSON array, served as JSON.
  if (stream && !sse && response.headers["content-type"] === SSE_HEADERS["content-type"]) {
    response.headers = { ...response.headers, "content-type": "application/json" };
  }
  return response;
}

function geminiModel(id: string, ownedBy: string) {
  return {
    name: `models/${id}`,
    baseModelId: id,
    version: "001",
    displayName: id,
    description: `Served by the gateway (${ownedBy}).`,
    supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"],
  };
}

/** GET /{v1beta|v1}/models */
export const handleGeminiListModels = withApiKey(
  geminiFormat,
  (request) => `${geminiVersion(request)}/models`,
  async (context) => jsonResponse(200, { models: listedModels(context).map(({ id, ownedBy }) => geminiModel(id, ownedBy)) }),
);

/** GET /{v1beta|v1}/models/{model} */
export const handleGeminiGetModel = withApiKey(
  geminiFormat,
  (request) => `${geminiVersion(request)}/models/{model}`,
  async (context) => {
    const id = (context.request.params.path ?? "").replace(/^models\//, "");
    const listed = listedModels(context);
    const model = listed.find((entry) => entry.id === id);
    if (!model) {
      const near = nearestNames(
        id,
        listed.map((entry) => entry.id),
      );
      throw new GatewayError("not_found", `models/${id} is not found.${near.length ? ` Did you mean ${near.map((name) => `models/${name}`).join(" or ")}?` : ""}`, {
        code: "model_not_found",
      });
    }
    return jsonResponse(200, geminiModel(model.id, model.ownedBy));
  },
);
