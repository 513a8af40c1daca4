import type { Runtime } from "@/lib/runtime";

/**
 * The model the Playground starts on: the first (by name) that a channel in good health
 * serves (circuit closed, last call fine), so a new user's first message works. A real
 * upstream is preferred to the built-in mock when one is healthy.
 */
export async function healthyModel(runtime: Runtime, models: string[]): Promise<string> {
  const rows = await runtime.database.channel.findMany({ select: { id: true, lastError: true } });
  const failing = new Set(rows.filter((row) => row.lastError).map((row) => row.id));
  const healthy = (model: string) =>
    runtime.channels.candidates(model).some((channel) => !failing.has(channel.id) && (runtime.channelStates.view(channel.id)?.circuit ?? "closed") === "closed");
  const real = (model: string) => runtime.channels.candidates(model).some((channel) => channel.type !== "mock");
  return models.find((model) => healthy(model) && real(model)) ?? models.find(healthy) ?? models[0] ?? "";
}
