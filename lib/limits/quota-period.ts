export type QuotaPeriod = "none" | "daily" | "weekly" | "monthly";

/** The start (UTC) of the period `now` falls in; the epoch for a quota that never resets. */
export function periodStart(period: QuotaPeriod, now = new Date()): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const day = now.getUTCDate();
  switch (period) {
    case "none":
      return new Date(0);
    case "daily":
      return new Date(Date.UTC(year, month, day));
    case "weekly": // weeks start on Monday
      return new Date(Date.UTC(year, month, day - ((now.getUTCDay() + 6) % 7)));
    case "monthly":
      return new Date(Date.UTC(year, month, 1));
  }
}

/** When the period that started at `start` ends (null: never). */
export function periodEnd(period: QuotaPeriod, start: Date): Date | null {
  switch (period) {
    case "none":
      return null;
    case "daily":
      return new Date(start.getTime() + 86_400_000);
    case "weekly":
      return new Date(start.getTime() + 7 * 86_400_000);
    case "monthly":
      return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  }
}
