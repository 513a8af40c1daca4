/** One row of the usage log, as the pipeline produces it. */
export interface RequestLogEntry {
  id: string;
  createdAt: Date;
  endpoint: string;
  clientFormat: string;
  method: string;
  tokenId: string | null;
  userId: string | null;
  channelId: string | null;
  model: string | null;
  upstreamModel: string | null;
  status: number;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  usageEstimated: boolean;
  latencyMs: number;
  firstTokenMs: number | null;
  errorMessage: string | null;
  warnings: string[] | null;
}
