import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { EmbeddingsRequest, EmbeddingsResult } from "@/lib/canonical/embeddings";
import { jsonResponse } from "@/lib/canonical/api-types";
import { renderEmbeddings } from "@/lib/formats/openai/render-embeddings";
import type { AttemptContext, OperationMember } from "@/lib/providers/provider";
import { countTokens } from "@/lib/usage/count-tokens";
import { postGemini } from "./call-upstream";

const batchEmbedResponseSchema = z.object({ embeddings: z.array(z.object({ values: z.array(z.number()) })) });

type Embed = (request: EmbeddingsRequest, context: AttemptContext) => Promise<EmbeddingsResult>;

/** OpenAI-style embeddings on Gemini: one batchEmbedContents call for every input, in order. */
export async function embedWithGemini(request: EmbeddingsRequest, context: AttemptContext): Promise<EmbeddingsResult> {
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

/** OpenAI-format /v1/embeddings served by an embedding call of Google's (Gemini's, Vertex's): texts only (token arrays are OpenAI's own). */
export function textEmbeddingsMember(embed: Embed): OperationMember<"embeddings"> {
  return {
    attempt: async (call, context) => {
      const body = call.body as { input: unknown; dimensions?: number; encoding_format?: "float" | "base64" };
      const inputs = embeddingTexts(body.input);
      if (!inputs) {
        throw new GatewayError("invalid_request", "Token arrays can only be embedded by an OpenAI-type channel; send the text instead.", { param: "input" });
      }
      const result = await embed({ model: call.model, inputs, dimensions: body.dimensions }, context);
      const promptTokens = result.promptTokens ?? (await countTokens(inputs.join("\n")));
      context.meter.recordUsage({ promptTokens, completionTokens: 0 });
      return jsonResponse(200, renderEmbeddings(result, call.model, body.encoding_format ?? "float", promptTokens));
    },
  };
}

export const geminiEmbeddingsMember = textEmbeddingsMember(embedWithGemini);

function embeddingTexts(input: unknown): string[] | undefined {
  const inputs = typeof input === "string" ? [input] : input;
  return Array.isArray(inputs) && inputs.every((item): item is string => typeof item === "string") ? inputs : undefined;
}
