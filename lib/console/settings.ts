import type { Runtime } from "@/lib/runtime";

/** Deployment settings, with their defaults. */
export interface Settings {
  openSignup: boolean;
}

const DEFAULTS: Settings = { openSignup: false };

export async function readSettings(runtime: Runtime): Promise<Settings> {
  // Only the settings named here: the table also keeps internal values (the setup code).
  const rows = await runtime.database.setting.findMany({ where: { key: { in: Object.keys(DEFAULTS) } } });
  const stored = Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value)]));
  return { ...DEFAULTS, ...stored };
}

export async function writeSetting<K extends keyof Settings>(runtime: Runtime, key: K, value: Settings[K]): Promise<void> {
  const json = JSON.stringify(value);
  await runtime.database.setting.upsert({ where: { key }, create: { key, value: json }, update: { value: json } });
}
