import type { Runtime } from "@/lib/runtime";

/** How sure a first message through a channel is to work, best first. */
const CONFIDENCE = ["answered-upstream", "answered", "untried-mock", "untried"] as const;
type Confidence = (typeof CONFIDENCE)[number];

/**
 * The model the Playground starts on, so a new user's first message works: the first (in
 * the list's order) served by a channel that has answered (its last call fine, circuit
 * closed), a real upstream before the built-in mock. When none has answered yet, the mock
 * (which always answers) comes before an upstream never used.
 */
export async function healthyModel(runtime: Runtime, models: string[]): Promise<string> {
  const rows = await runtime.database.channel.findMany({ select: { id: true, lastError: true, lastLatencyMs: true } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  const confidence = (model: string): number => {
    let best: number = CONFIDENCE.length;
    for (const channel of runtime.channels.candidates(model)) {
      const row = byId.get(channel.id);
      if (!row || row.lastError || (runtime.channelStates.view(channel.id)?.circuit ?? "closed") !== "closed") continue;
      const mock = channel.type === "mock";
      const level: Confidence = row.lastLatencyMs !== null ? (mock ? "answered" : "answered-upstream") : mock ? "untried-mock" : "untried";
      best = Math.min(best, CONFIDENCE.indexOf(level));
    }
    return best;
  };
  let chosen = models[0] ?? "";
  let chosenConfidence: number = CONFIDENCE.length;
  for (const model of models) {
    const level = confidence(model);
    if (level < chosenConfidence) [chosen, chosenConfidence] = [model, level];
  }
  return chosen;
}
