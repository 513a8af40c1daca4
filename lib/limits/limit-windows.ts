import { createHash } from "node:crypto";
import { z } from "zod";
import { parseDuration } from "@/lib/duration";
import { periodEnd, periodStart, type QuotaPeriod } from "./quota-period";

// Plan-style limits: several windows on one token or user, all applied at once. A window
// is a duration that opens at the first request counted against it ("5h", as the Claude
// and Codex plans count), or a calendar day, week (from Monday) or month in UTC.

const CALENDAR: Record<string, Exclude<QuotaPeriod, "none">> = { day: "daily", week: "weekly", month: "monthly" };
const LONGEST_MS = 366 * 86_400_000;

export const limitWindowSchema = z
  .strictObject({
    window: z
      .string()
      .trim()
      .refine((text) => text in CALENDAR || ((parseDuration(text) ?? 0) >= 1000 && (parseDuration(text) ?? 0) <= LONGEST_MS), {
        message: 'window must be "day", "week", "month" or a duration from 1s to 366d such as "90m", "5h" or "7d"',
      }),
    tokens: z.number().int().min(0).optional(),
    usd: z.number().min(0).max(1_000_000_000).optional(),
    requests: z.number().int().min(0).optional(),
    models: z.array(z.string().trim().min(1).max(200)).min(1).max(100).optional(),
    /** Fractions of the limit whose crossing raises a budget.threshold webhook event, once per period ([0.8] unless set; [] for none). */
    alertAt: z.array(z.number().gt(0).lt(1)).max(10).optional(),
  })
  .refine((window) => window.tokens !== undefined || window.usd !== undefined || window.requests !== undefined, {
    message: "each window needs at least one of tokens, usd or requests",
  });
export const limitWindowsSchema = z.array(limitWindowSchema).max(20);
export type LimitWindow = z.infer<typeof limitWindowSchema>;

/** A window ready for the hot path: parsed once when the token is loaded. */
export interface CompiledWindow {
  spec: LimitWindow;
  /** Stable while the window's span and models stay the same, so editing a limit keeps its count. */
  id: string;
  /** Rolling: its length; calendar: null. */
  durationMs: number | null;
  period: Exclude<QuotaPeriod, "none"> | null;
  models: ReadonlySet<string> | null;
}

/** Reads a stored `limits` column; anything invalid in it is ignored rather than failing every request. */
export function compileWindows(value: unknown): CompiledWindow[] {
  const parsed = limitWindowsSchema.safeParse(value ?? []);
  if (!parsed.success) return [];
  const seen = new Map<string, number>();
  return parsed.data.map((spec) => {
    const models = spec.models ? [...new Set(spec.models)].sort() : null;
    const base = createHash("sha256")
      .update(`${spec.window}|${models?.join(",") ?? "*"}`)
      .digest("base64url")
      .slice(0, 12);
    const repeat = seen.get(base) ?? 0;
    seen.set(base, repeat + 1);
    return {
      spec,
      id: repeat === 0 ? base : `${base}.${repeat}`,
      durationMs: spec.window in CALENDAR ? null : parseDuration(spec.window)!,
      period: CALENDAR[spec.window] ?? null,
      models: models ? new Set(models) : null,
    };
  });
}

/** Whether a request for `model` counts against the window. */
export function windowCounts(window: CompiledWindow, model: string | undefined): boolean {
  return window.models === null || (model !== undefined && window.models.has(model));
}

/** The shared-state key of a window; a calendar window's key names its period, so a new period is a new counter. */
export function windowKey(subjectKey: string, window: CompiledWindow, now: number, span = calendarSpan(window, now)): string {
  const base = `window:${subjectKey}:${window.id}`;
  return span ? `${base}:${span.start}` : base;
}

/** A calendar window's current span; null for a rolling one (it opens with its first request). */
export function calendarSpan(window: CompiledWindow, now: number): { start: number; end: number } | null {
  if (!window.period) return null;
  const start = periodStart(window.period, new Date(now));
  return { start: start.getTime(), end: periodEnd(window.period, start)!.getTime() };
}
