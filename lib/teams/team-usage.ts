import type { Runtime } from "@/lib/runtime";

const DAY = 86_400_000;

/** Each team's requests and cost over the last `days`: the sums of its tokens' hourly rollups. */
export async function teamUsage(runtime: Runtime, teamIds: string[], days = 30): Promise<Map<string, { requests: number; costUsd: number }>> {
  if (teamIds.length === 0) return new Map();
  // This process's rows not yet written are counted too.
  await runtime.logs.flush();
  const tokens = await runtime.database.token.findMany({ where: { teamId: { in: teamIds } }, select: { id: true, teamId: true } });
  const teamOf = new Map(tokens.map((token) => [token.id, token.teamId!]));
  const rows = await runtime.logStore.usage({ from: new Date(Date.now() - days * DAY), groupBy: ["token"], tokenIds: [...teamOf.keys()] });
  const totals = new Map<string, { requests: number; costUsd: number }>();
  for (const row of rows) {
    const team = row.token ? teamOf.get(row.token) : undefined;
    if (!team) continue;
    const total = totals.get(team) ?? { requests: 0, costUsd: 0 };
    totals.set(team, { requests: total.requests + row.requests, costUsd: total.costUsd + row.costUsd });
  }
  return totals;
}
