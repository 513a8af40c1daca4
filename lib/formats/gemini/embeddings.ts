import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { validationError } from "@/lib/formats/validation-error";
import { contentSchema } from "./schema";

// Gemini's embedding methods as the clients send them: `:embedContent` takes one content,
// `:batchEmbedContents` a list of requests (what @google/genai's embedContent calls). Both
// become one OpenAI-shaped embeddings call (texts in order, the dimension asked for), so
// every channel that embeds serves them; the answer comes back in Gemini's shape.

const embedRequestSchema = z.looseObject({
  model: z.string().optional(),
  content: contentSchema,
  taskType: z.string().optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().positive().optional(),
});
const batchRequestSchema = z.looseObject({ requests: z.array(embedRequestSchema).min(1) });

export type GeminiEmbedMethod = "embedContent" | "batchEmbedContents";

export interface GeminiEmbedding {
  /** One text per embedding, in order. */
  inputs: string[];
  dimensions: number | undefined;
}

/** The texts and dimension of an embedding request; a request of another model, or with no text, is refused as Gemini would. */
export function parseGeminiEmbedRequest(method: GeminiEmbedMethod, json: unknown, model: string): GeminiEmbedding {
  const parsed = method === "embedContent" ? embedRequestSchema.safeParse(json) : batchRequestSchema.safeParse(json);
  if (!parsed.success) throw validationError(parsed.error);
  const requests = "requests" in parsed.data ? (parsed.data.requests as z.infer<typeof embedRequestSchema>[]) : [parsed.data as z.infer<typeof embedRequestSchema>];
  const dimensions = new Set(requests.map((request) => request.outputDimensionality));
  if (dimensions.size > 1) {
    throw new GatewayError("invalid_request", "Every request of a batch must ask for the same outputDimensionality.", { param: "requests" });
  }
  const inputs = requests.map((request, index) => {
    const prefix = method === "embedContent" ? "" : `requests[${index}].`;
    if (request.model !== undefined && request.model.replace(/^models\//, "") !== model) {
      throw new GatewayError("invalid_request", `${prefix}model '${request.model}' must be the model of the URL, models/${model}.`, { param: `${prefix}model` });
    }
    const texts = request.content.parts.map((part) => part.text);
    if (texts.length === 0 || texts.some((text) => typeof text !== "string")) {
      throw new GatewayError("invalid_request", `${prefix}content must hold text parts only: the gateway embeds text.`, { param: `${prefix}content` });
    }
    return texts.join("\n");
  });
  return { inputs, dimensions: [...dimensions][0] };
}

const openAIEmbeddingsSchema = z.object({ data: z.array(z.object({ index: z.number().optional(), embedding: z.array(z.number()) })) });

/** An OpenAI embeddings answer (floats) in Gemini's shape for the method called. */
export function renderGeminiEmbeddings(method: GeminiEmbedMethod, json: unknown): Record<string, unknown> {
  const parsed = openAIEmbeddingsSchema.safeParse(json);
  if (!parsed.success) {
    throw new GatewayError("bad_gateway", "The upstream returned embeddings the gateway could not read.", { code: "invalid_upstream_response" });
  }
  const ordered = [...parsed.data.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const embeddings = ordered.map((entry) => ({ values: entry.embedding }));
  return method === "embedContent" ? { embedding: embeddings[0] } : { embeddings };
}
