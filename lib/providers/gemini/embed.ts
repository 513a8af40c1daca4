import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { EmbeddingsRequest, EmbeddingsResult } from "@/lib/canonical/embeddings";
import type { CallContext } from "@/lib/providers/provider";
import { postGemini } from "./call-upstream";

const batchEmbedResponseSchema = z.object({ embeddings: z.array(z.object({ values: z.array(z.number()) })) });

/** OpenAI-style embeddings on Gemini: one batchEmbedContents call for every input, in order. */
export async function embedWithGemini(request: EmbeddingsRequest, context: CallContext): Promise<EmbeddingsResult> {
  const model = `models/${context.upstreamModel.replace(/^models\//, "")}`;
  const response = await postGemini(
    "batchEmbedContents",
    {
      requests: request.inputs.map((text) => ({
        model,
        content: { parts: [{ text }] },
        ...(request.dimensions ? { outputDimensionality: request.dimensions } : {}),
      })),
    },
    context,
  );
  const parsed = batchEmbedResponseSchema.safeParse(await response.body.json());
  if (!parsed.success || parsed.data.embeddings.length !== request.inputs.length) {
    throw new GatewayError("bad_gateway", "The upstream returned embeddings the gateway could not read.", { code: "invalid_upstream_response" });
  }
  context.meter.markFirstToken();
  return { vectors: parsed.data.embeddings.map((embedding) => embedding.values) };
}
