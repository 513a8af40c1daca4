// One Vertex channel serves models of two wire formats: Claude models speak Anthropic's
// Messages API (rawPredict), the rest Gemini's (members/model-families.ts routes each call).

export type ModelFamily = "anthropic" | "google";

/** Claude models are Anthropic's publisher models on Vertex; everything else is Google's. */
export function modelFamily(upstreamModel: string): ModelFamily {
  return upstreamModel.startsWith("claude-") ? "anthropic" : "google";
}
