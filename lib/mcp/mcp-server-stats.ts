import type { RequestLogStore } from "@/lib/usage/request-log-store";

// Per-server tools/call counts, errors and latency, read from the hourly rollups (a /mcp call
// rolls up under the model key `mcp:<server>`), never from raw log rows.

export interface McpServerStats {
  calls: number;
  errors: number;
  averageLatencyMs: number | null;
}

export const mcpRollupKey = (serverName: string) => `mcp:${serverName}`;

export async function mcpServerStats(store: RequestLogStore, serverNames: readonly string[], since: Date): Promise<Map<string, McpServerStats>> {
  const stats = new Map<string, McpServerStats>();
  if (serverNames.length === 0) return stats;
  const groups = await store.usage({ from: since, groupBy: ["model"], models: serverNames.map(mcpRollupKey) });
  for (const group of groups) {
    const name = group.model?.startsWith("mcp:") ? group.model.slice(4) : null;
    if (!name) continue;
    stats.set(name, { calls: group.requests, errors: group.failed, averageLatencyMs: group.requests > 0 ? Math.round(group.latencyMsSum / group.requests) : null });
  }
  return stats;
}
