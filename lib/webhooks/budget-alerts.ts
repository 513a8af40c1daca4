import type { CompiledWindow } from "@/lib/limits/limit-windows";
import type { SharedState, WindowUnit } from "@/lib/state/shared-state";
import type { QuotaSubject } from "@/lib/usage/request-log-store";
import type { WebhookEvent, WebhookSubject } from "./webhook-events";
import type { Webhooks } from "./webhooks";

// Budget alerts: after a request settles, the windows it counted against are read back; a
// window whose use crossed one of its `alertAt` fractions (0.8 unless set) raises
// budget.threshold, and a window refusing a request raises budget.exhausted. Each once per
// window period: the event id is derived from the window's key, its opening and the
// threshold, so concurrent requests and other processes raising it again write nothing,
// and a window that resets (a new opening) raises them anew. Each process remembers what it
// raised, so a window past its threshold costs no database write per request.

export const DEFAULT_ALERT_AT = [0.8];
const UNITS: WindowUnit[] = ["tokens", "usd", "requests"];
const REMEMBERED = 10_000;

export interface SettledWindow {
  window: CompiledWindow;
  key: string;
}

/** The name a subject goes by in an alert (a token's name, a user's email...). */
export type SubjectName = (subject: QuotaSubject) => Promise<{ kind: WebhookSubject["kind"]; name: string }>;

export class BudgetAlerts {
  private readonly raised = new Set<string>();

  constructor(
    private readonly state: SharedState,
    private readonly webhooks: Webhooks,
    private readonly nameOf: SubjectName,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** After a settlement: any threshold the windows' use has crossed. Off the request path. */
  settled(subject: QuotaSubject, windows: readonly SettledWindow[]): void {
    if (windows.length === 0 || !this.webhooks.wants("budget.threshold")) return;
    this.checkThresholds(subject, windows).catch(this.onError);
  }

  /** A window refused a request: its budget is spent for now. */
  refused(subject: QuotaSubject, settled: SettledWindow, unit: WindowUnit, used: number): void {
    if (!this.webhooks.wants("budget.exhausted")) return;
    this.exhausted(subject, settled, unit, used).catch(this.onError);
  }

  private async checkThresholds(subject: QuotaSubject, windows: readonly SettledWindow[]): Promise<void> {
    const states = await this.state.readWindows(windows.map((entry) => entry.key));
    for (const [index, { window, key }] of windows.entries()) {
      const state = states[index];
      if (!state) continue;
      for (const unit of UNITS) {
        const limit = window.spec[unit];
        if (limit === undefined || limit <= 0) continue;
        const used = state.used[unit];
        // The highest threshold crossed: crossing 0.5 and 0.8 in one request raises both, lowest first.
        for (const fraction of [...(window.spec.alertAt ?? DEFAULT_ALERT_AT)].sort((a, b) => a - b)) {
          if (used < limit * fraction) break;
          const id = `budget.threshold:${key}:${state.start}:${unit}:${fraction}`;
          if (!this.remember(id)) continue;
          const resetsAt = new Date(Date.now() + state.resetsInMs).toISOString();
          await this.raise(subject, id, window, unit, limit, used, resetsAt, fraction);
        }
      }
    }
  }

  private async exhausted(subject: QuotaSubject, { window, key }: SettledWindow, unit: WindowUnit, used: number): Promise<void> {
    const [state] = await this.state.readWindows([key]);
    const start = state?.start ?? 0;
    const id = `budget.exhausted:${key}:${start}:${unit}`;
    if (!this.remember(id)) return;
    const resetsAt = state ? new Date(Date.now() + state.resetsInMs).toISOString() : null;
    await this.raise(subject, id, window, unit, window.spec[unit] ?? 0, used, resetsAt);
  }

  private async raise(
    subject: QuotaSubject,
    dedupeKey: string,
    window: CompiledWindow,
    unit: WindowUnit,
    limit: number,
    used: number,
    resetsAt: string | null,
    percent?: number,
  ): Promise<void> {
    const named = await this.nameOf(subject);
    const amount = (value: number) => (unit === "usd" ? `$${value.toFixed(2)}` : `${Math.round(value).toLocaleString("en-US")} ${unit}`);
    const whose = `${named.kind.replace("_", " ")} "${named.name}"`;
    const text =
      percent === undefined
        ? `The ${window.spec.window} window of ${whose} is spent: ${amount(used)} of ${amount(limit)}; requests are refused until it resets.`
        : `The ${window.spec.window} window of ${whose} passed ${Math.round(percent * 100)}%: ${amount(used)} of ${amount(limit)}.`;
    const event: WebhookEvent = {
      event: percent === undefined ? "budget.exhausted" : "budget.threshold",
      text,
      subject: { kind: named.kind, id: subject.id, name: named.name },
      window: { window: window.spec.window, unit, limit, used, resetsAt },
      ...(percent === undefined ? {} : { percent }),
    };
    await this.webhooks.emit(event, dedupeKey);
  }

  /** False when this process raised it already. */
  private remember(id: string): boolean {
    if (this.raised.has(id)) return false;
    if (this.raised.size >= REMEMBERED) this.raised.clear();
    this.raised.add(id);
    return true;
  }
}
