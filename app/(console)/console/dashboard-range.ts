// The Dashboard's date range as its URL holds it: `?range=7d` (the last 7 days up to the
// current hour's end) or `?from=2025-03-01&to=2025-03-15` (whole UTC days, `to` included).
// Read by the page on the server and offered by the picker in the browser.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A custom range spans at most this many days. */
const CUSTOM_MAX_DAYS = 366;

export const RANGE_PRESETS = [
  { key: "24h", label: "24 h", hours: 24, title: "Last 24 hours" },
  { key: "7d", label: "7 d", hours: 7 * 24, title: "Last 7 days" },
  { key: "30d", label: "30 d", hours: 30 * 24, title: "Last 30 days" },
  { key: "90d", label: "90 d", hours: 90 * 24, title: "Last 90 days" },
] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
export type RangeKey = RangePreset["key"] | "custom";

export interface DashboardSelection {
  key: RangeKey;
  /** The span shown: [from, to), whole hours. */
  from: Date;
  to: Date;
  /** For the page's description and empty state: "Last 7 days", "2025-03-01 to 2025-03-15 (UTC)". */
  title: string;
  /** Whether the range ends now (a preset, or custom up to today). */
  endsNow: boolean;
  /** Why the URL's range was not used, when it was not. */
  problem?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A UTC day's start from `YYYY-MM-DD`, or null (2025-02-30 does not roll over into March). */
function dayStart(value: string | undefined): number | null {
  const match = value ? DATE.exec(value) : null;
  if (!match) return null;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(time).toISOString().slice(0, 10) === value ? time : null;
}

/** The current hour's end: ranges stop there, like the dashboard's `lastHours`. */
const hourEnd = (now: number) => Math.ceil((now + 1) / HOUR) * HOUR;

function preset(key: string | undefined, now: number, problem?: string): DashboardSelection {
  const chosen = RANGE_PRESETS.find((item) => item.key === key) ?? RANGE_PRESETS[0];
  const to = hourEnd(now);
  return { key: chosen.key, from: new Date(to - chosen.hours * HOUR), to: new Date(to), title: chosen.title, endsNow: true, ...(problem ? { problem } : {}) };
}

type Params = Record<string, string | string[] | undefined>;
const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The range a Dashboard URL asks for; anything unreadable shows the last 24 hours and says why. */
export function readSelection(params: Params, now = Date.now()): DashboardSelection {
  const fromText = single(params.from);
  const toText = single(params.to);
  if (fromText === undefined && toText === undefined) return preset(single(params.range), now);
  const from = dayStart(fromText);
  const last = dayStart(toText);
  if (from === null || last === null) return preset(undefined, now, "A custom range needs two dates (YYYY-MM-DD).");
  if (last < from) return preset(undefined, now, "A custom range's end comes before its start.");
  if (last - from >= CUSTOM_MAX_DAYS * DAY) return preset(undefined, now, `A custom range covers at most ${CUSTOM_MAX_DAYS} days.`);
  // Days still to come are left out: the range stops at the current hour's end.
  const to = Math.min(last + DAY, hourEnd(now));
  if (from >= to) return preset(undefined, now, "A custom range cannot start in the future.");
  return { key: "custom", from: new Date(from), to: new Date(to), title: `${fromText} to ${toText} (UTC)`, endsNow: to === hourEnd(now) };
}

/** The dates a custom range form starts from: the range shown, `to` as the last day included. */
export function selectionDates(selection: DashboardSelection): { from: string; to: string } {
  return { from: selection.from.toISOString().slice(0, 10), to: new Date(selection.to.getTime() - 1).toISOString().slice(0, 10) };
}
