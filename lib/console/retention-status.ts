import { env } from "@/lib/env";
import type { Runtime } from "@/lib/runtime";

/** "30d", "10m", "3s"; "forever" for 0 (never deleted). */
export function formatRetention(ms: number): string {
  if (ms <= 0) return "forever";
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${Math.round(ms / 1000)}s`;
}

/** Each store's retention setting and about how many rows it holds now, for the dashboard. */
export async function retentionStatus(runtime: Runtime) {
  const [logs, responses, rollups] = await Promise.all([runtime.logStore.countRows(), runtime.responses.count(), runtime.database.usageDay.count()]);
  return {
    sweepEvery: env.RETENTION_SWEEP_INTERVAL > 0 ? formatRetention(env.RETENTION_SWEEP_INTERVAL) : "never",
    stores: [
      // An estimate: counting millions of rows exactly takes seconds.
      { name: "Request logs", setting: "LOG_RETENTION", keptFor: formatRetention(env.LOG_RETENTION), rows: logs as number | null, estimate: true },
      { name: "Stored responses", setting: "RESPONSE_RETENTION", keptFor: formatRetention(env.RESPONSE_RETENTION), rows: responses as number | null, estimate: false },
      // Captures expire by themselves in the shared state (Redis or memory): nothing to count or sweep.
      { name: "Playground captures", setting: "CAPTURE_RETENTION", keptFor: formatRetention(env.CAPTURE_RETENTION), rows: null, estimate: false },
      { name: "Usage by the day (and by the hour: what every usage view and quota reads)", setting: null, keptFor: "forever", rows: rollups as number | null, estimate: false },
    ],
  };
}
