import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { EmbeddingsRequest, EmbeddingsResult } from "@/lib/canonical/embeddings";
import { postGemini } from "@/lib/providers/gemini/call-upstream";
import { textEmbeddingsMember } from "@/lib/providers/gemini/embed";
import type { AttemptContext } from "@/lib/providers/provider";

// Embeddings on Vertex: `:predict` on the publisher model, one instance per text, each
// prediction with its vector and the tokens it counted. gemini-embedding-001 takes one
// instance per request, the text-embedding models up to 250.

const predictResponseSchema = z.looseObject({
  predictions: z.array(
    z.looseObject({
      embeddings: z.looseObject({
        values: z.array(z.number()),
        statistics: z.looseObject({ token_count: z.number().optional() }).optional(),
      }),
    }),
  ),
});

const MAX_CONCURRENT_REQUESTS = 8;
const instancesPerRequest = (model: string) => (model.startsWith("gemini-embedding") ? 1 : 250);

export async function embedWithVertex(request: EmbeddingsRequest, context: AttemptContext): Promise<EmbeddingsResult> {
  const size = instancesPerRequest(context.upstreamModel);
  const batches: string[][] = [];
  for (let start = 0; start < request.inputs.length; start += size) batches.push(request.inputs.slice(start, start + size));
  const predict = async (texts: string[]) => {
    const response = await postGemini(
      "predict",
      { instances: texts.map((content) => ({ content })), ...(request.dimensions ? { parameters: { outputDimensionality: request.dimensions } } : {}) },
      context,
    );
    const parsed = predictResponseSchema.safeParse(await response.body.json());
    if (!parsed.success || parsed.data.predictions.length !== texts.length) {
      throw new GatewayError("bad_gateway", "The upstream returned embeddings the gateway could not read.", { code: "invalid_upstream_response" });
    }
    return parsed.data.predictions;
  };
  // A few requests at a time: one text per request adds up for a long list.
  const answers: Awaited<ReturnType<typeof predict>>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(MAX_CONCURRENT_REQUESTS, batches.length) }, async () => {
      while (next < batches.length) {
        const index = next++;
        answers[index] = await predict(batches[index]!);
      }
    }),
  );
  context.meter.markFirstToken();
  const predictions = answers.flat();
  const counted = predictions.every((prediction) => prediction.embeddings.statistics?.token_count !== undefined);
  return {
    vectors: predictions.map((prediction) => prediction.embeddings.values),
    promptTokens: counted ? predictions.reduce((total, prediction) => total + prediction.embeddings.statistics!.token_count!, 0) : undefined,
  };
}

/** OpenAI-format /v1/embeddings (and Gemini clients' embedContent) on a Vertex embedding model. */
export const vertexEmbeddingsMember = textEmbeddingsMember(embedWithVertex);
