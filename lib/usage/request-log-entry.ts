/** One upstream attempt made for a request, kept inside its log row. */
export interface AttemptRecord {
  channelId: string;
  channelName: string;
  model: string;
  /** The upstream's HTTP status, or 0 when no answer arrived (connection error, timeout). */
  status: number;
  error: string | null;
  latencyMs: number;
  /** The pool key that served or failed, as its last four characters. */
  keyHint?: string;
}

/** One row of the usage log, as the pipeline produces it. */
export interface RequestLogEntry {
  id: string;
  /** The caller's own `x-request-id`, when it sent one (in log lines, not stored). */
  clientRequestId?: string | null;
  createdAt: Date;
  endpoint: string;
  clientFormat: string;
  method: string;
  tokenId: string | null;
  userId: string | null;
  channelId: string | null;
  model: string | null;
  upstreamModel: string | null;
  /** The fallback model that answered, when not the requested `model`. */
  servedModel?: string | null;
  status: number;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  usageEstimated: boolean;
  latencyMs: number;
  firstTokenMs: number | null;
  costUsd: number;
  errorMessage: string | null;
  warnings: string[] | null;
  attempts: AttemptRecord[] | null;
  /** A hash of the client's session (session affinity), never the id itself. */
  sessionHash?: string | null;
  /** "hit" or "miss" for a request that asked for the response cache; null otherwise. */
  cacheStatus: "hit" | "miss" | null;
  /** On a hit, what the answer cost when the upstream produced it. */
  cacheSavedUsd: number;
  /** The MCP server and tool of a /mcp tools/call (issue 35). */
  mcpServer?: string | null;
  mcpTool?: string | null;
  /** The app's end user the request named (body user, safety_identifier, metadata.user_id, x-end-user-id). */
  endUser?: string | null;
}
