/** Text to embed, in one vendor-neutral shape. */
export interface EmbeddingsRequest {
  model: string;
  inputs: string[];
  /** Output dimensions, where the model can shorten its vectors. */
  dimensions?: number;
}

export interface EmbeddingsResult {
  vectors: number[][];
  /** Prompt tokens as the upstream counted them; undefined when it does not say. */
  promptTokens?: number;
}
