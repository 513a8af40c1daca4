import { GatewayError } from "@/lib/canonical/gateway-error";
import type { SharedState, WindowCharge, WindowUnit } from "@/lib/state/shared-state";
import type { QuotaSubject } from "@/lib/usage/request-log-store";
import { calendarSpan, windowCounts, windowKey, type CompiledWindow } from "./limit-windows";

/** What a subject spent since a moment, on some models (null: all), from the database. */
export type WindowSpentSince = (subject: QuotaSubject, since: Date, models: readonly string[] | null) => Promise<Record<WindowUnit, number>>;

/** One request's charge to each window it counts against: its worst case, and one request. */
export function chargesFor(
  subject: QuotaSubject,
  subjectKey: string,
  windows: readonly CompiledWindow[],
  model: string | undefined,
  wanted: { tokens: number; usd: number },
  spentSince: WindowSpentSince,
  now: number,
): { windows: readonly CompiledWindow[]; charges: WindowCharge[] } {
  const counted = windows.every((window) => window.models === null) ? windows : windows.filter((window) => windowCounts(window, model));
  const charges = counted.map((window): WindowCharge => {
    const span = calendarSpan(window, now);
    const { tokens, usd, requests } = window.spec;
    return {
      key: windowKey(subjectKey, window, now, span),
      ttlMs: span ? span.end - now : window.durationMs!,
      amounts: { tokens: wanted.tokens, usd: wanted.usd, requests: 1 },
      limits: { tokens: tokens ?? null, usd: usd ?? null, requests: requests ?? null },
      seed: span ? { load: () => spentSince(subject, new Date(span.start), window.models ? [...window.models] : null) } : undefined,
    };
  });
  return { windows: counted, charges };
}

/** "the 5h window" or "the weekly window", and the models it is about. */
export function describeWindow(window: CompiledWindow): string {
  const span = window.period ? `${window.period} (${window.spec.window})` : window.spec.window;
  return `the ${span} window${window.models ? ` for ${[...window.models].join(", ")}` : ""}`;
}

const UNIT_NAMES: Record<WindowUnit, (amount: number) => string> = {
  tokens: (amount) => `${Math.floor(amount)} tokens`,
  usd: (amount) => `$${amount.toFixed(6)}`,
  requests: (amount) => `${Math.floor(amount)} requests`,
};

/** Whose window a refusal names: the key's own (and its owner's), its team's, the member's share, an end user's. */
const WHOSE: Record<QuotaSubject["kind"], string> = {
  token: "this key",
  user: "this key",
  team: "this key's team",
  member: "your share of this key's team",
  "end-user": "this end user",
};

export function windowError(window: CompiledWindow, unit: WindowUnit, used: number, wanted: number, retryAfterMs: number, subject?: QuotaSubject): GatewayError {
  const whose = WHOSE[subject?.kind ?? "token"];
  const limit = window.spec[unit]!;
  const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const name = describeWindow(window);
  const message =
    wanted > limit
      ? `This request could use up to ${UNIT_NAMES[unit](Math.ceil(wanted))}, more than ${name} of ${whose} allows (${UNIT_NAMES[unit](limit)}). Lower max_tokens.`
      : `Limit reached: ${name} of ${whose} allows ${UNIT_NAMES[unit](limit)} and ${UNIT_NAMES[unit](used)} are used or held by requests in flight. It has room again in ${retryAfterSeconds} s.`;
  return new GatewayError("quota_exceeded", message, { code: "limit_window_exceeded", retryAfterSeconds });
}

/** Each window's use and reset time, as the admin API and the console show them. */
export async function windowUsage(
  state: SharedState,
  subject: QuotaSubject,
  subjectKey: string,
  windows: readonly CompiledWindow[],
  spentSince: WindowSpentSince,
  now = Date.now(),
) {
  const open = await state.readWindows(windows.map((window) => windowKey(subjectKey, window, now)));
  return Promise.all(
    windows.map(async (window, index) => {
      const span = calendarSpan(window, now);
      const state = open[index];
      // A calendar window nobody counted yet in this process's store: what the database says.
      const used = state?.used ?? (span ? await spentSince(subject, new Date(span.start), window.models ? [...window.models] : null) : { tokens: 0, usd: 0, requests: 0 });
      const resetsAt = span ? span.end : state ? now + state.resetsInMs : null;
      return {
        ...window.spec,
        used: { tokens: Math.round(used.tokens), usd: used.usd, requests: Math.round(used.requests) },
        openedAt: span ? new Date(span.start).toISOString() : state ? new Date(state.start).toISOString() : null,
        resetsAt: resetsAt === null ? null : new Date(resetsAt).toISOString(),
      };
    }),
  );
}
