import type { EmbeddingsResult } from "@/lib/canonical/embeddings";

/** OpenAI's embeddings list; base64 is the vector's little-endian float32 bytes, as the SDK decodes it. */
export function renderEmbeddings(result: EmbeddingsResult, model: string, encoding: "float" | "base64", promptTokens: number) {
  return {
    object: "list",
    data: result.vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: encoding === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
    })),
    model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
