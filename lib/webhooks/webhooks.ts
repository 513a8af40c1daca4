import { createHash, randomUUID } from "node:crypto";
import type { Database } from "@/lib/db/client";
import { decryptSecret } from "@/lib/crypto/encryption";
import { postPublicUrl } from "@/lib/net/fetch-public-url";
import type { SharedState } from "@/lib/state/shared-state";
import { eventPayload, TEST_EVENT, type WebhookEvent } from "./webhook-events";
import { signatureOf } from "./sign-delivery";

// Events become one row per subscribed webhook (WebhookDelivery), written by the process that
// raised the event; every process then sends what is due, each row claimed by one process at
// a time (a conditional update of `lockedUntil`, on the row as it was read), so two processes
// never both send one attempt. A receiver that does not answer 2xx is tried again on
// RETRY_STEPS, then the row is failed.

/** Multiples of the base delay (5 s): retries at 5, 15, 30, 60 and 120 s, then 7, 17, 32 and 52 min. */
const RETRY_STEPS = [1, 2, 3, 6, 12, 60, 120, 180, 240];
const SEND_TIMEOUT_MS = 10_000;
/** How long a process holds a row it is sending (longer than a send can take). */
const CLAIM_MS = 60_000;
const BATCH = 20;
const KEEP_DELIVERIES_MS = 30 * 24 * 3600_000;
/** Changes are announced to every process; this rereads anyway, in case an announcement was lost. */
const REFRESH_MS = 30_000;

export interface WebhooksOptions {
  /** The first retry's delay; the later ones are multiples of it. */
  retryBaseMs: number;
  now?: () => number;
  onError: (error: unknown) => void;
}

export type DeliveryOutcome = { delivered: true; status: number } | { delivered: false; status: number | null; error: string };

export class Webhooks {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private lastSweep = 0;
  /** The events some enabled webhook wants; null until first read (then everything is wanted). */
  private subscribed: Set<string> | null = null;
  private lastRefresh = 0;
  private readonly now: () => number;

  constructor(
    private readonly database: Database,
    private readonly shared: SharedState,
    private readonly encryptionKeys: Buffer[],
    private readonly options: WebhooksOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Whether some enabled webhook wants this event (as of the last change any process announced). */
  wants(event: WebhookEvent["event"]): boolean {
    return this.subscribed === null || this.subscribed.has(event);
  }

  /** Rereads which events are wanted (a webhook was added, changed or removed). */
  async refresh(): Promise<void> {
    this.lastRefresh = this.now();
    const hooks = await this.database.webhook.findMany({ where: { enabled: true }, select: { events: true } });
    this.subscribed = new Set(hooks.flatMap((hook) => hook.events as string[]));
  }

  /**
   * Records an event for every enabled webhook that wants it and sends it soon. With a
   * `dedupeKey` the event's id is derived from it: a second process raising the same
   * occurrence writes nothing (one row per webhook and event id).
   */
  async emit(event: WebhookEvent, dedupeKey?: string): Promise<void> {
    const hooks = await this.database.webhook.findMany({ where: { enabled: true }, select: { id: true, events: true } });
    const wanted = hooks.filter((hook) => (hook.events as string[]).includes(event.event));
    if (wanted.length === 0) return;
    const id = dedupeKey ? `evt_${createHash("sha256").update(dedupeKey).digest("hex").slice(0, 32)}` : `evt_${randomUUID().replaceAll("-", "")}`;
    const payload = eventPayload(id, new Date(this.now()), event);
    for (const hook of wanted) {
      try {
        await this.database.webhookDelivery.create({ data: { webhookId: hook.id, eventId: id, event: event.event, payload, nextAttemptAt: new Date(this.now()) } });
      } catch (error) {
        if ((error as { code?: string }).code !== "P2002") throw error; // another process recorded it first
      }
    }
    this.kick();
  }

  /**
   * Raises an event at most once per `ttlMs` for `key` across processes (a circuit opening
   * in two processes at once, each counting its own failures).
   */
  async emitOnce(key: string, ttlMs: number, event: WebhookEvent): Promise<void> {
    if (!(await this.shared.acquireLease(`webhook-event:${key}`, randomUUID(), ttlMs))) return;
    await this.emit(event);
  }

  /** Sends a test event to one webhook now; the outcome of that one attempt (retried later if it failed). */
  async test(webhookId: string): Promise<DeliveryOutcome> {
    const id = `evt_${randomUUID().replaceAll("-", "")}`;
    const event: WebhookEvent = {
      event: TEST_EVENT,
      text: "Test event from the gateway: this webhook is reachable.",
      subject: { kind: "channel", id: webhookId, name: "webhook test" },
    };
    const payload = eventPayload(id, new Date(this.now()), event);
    const row = await this.database.webhookDelivery.create({
      data: { webhookId, eventId: id, event: TEST_EVENT, payload, lockedUntil: new Date(this.now() + CLAIM_MS) },
    });
    return this.send(row);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Sends what is due; one pass at a time per process. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.deliverDue()
      .catch(this.options.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Every delivery due now, each claimed before it is sent. */
  async deliverDue(): Promise<void> {
    await this.sweep();
    if (this.now() - this.lastRefresh > REFRESH_MS) await this.refresh();
    for (;;) {
      const now = new Date(this.now());
      const due = await this.database.webhookDelivery.findMany({
        where: { status: "pending", nextAttemptAt: { lte: now } },
        orderBy: { nextAttemptAt: "asc" },
        take: BATCH,
      });
      const claimable = due.filter((row) => !row.lockedUntil || row.lockedUntil <= now);
      if (claimable.length === 0) return;
      await Promise.all(
        claimable.map(async (row) => {
          // Claimed only as it was read: a row another process sent meanwhile has more attempts
          // (and a later nextAttemptAt), so a stale read neither sends it again before its retry
          // is due nor writes back an attempt count that misses one.
          const claimed = await this.database.webhookDelivery.updateMany({
            where: {
              id: row.id,
              status: "pending",
              attempts: row.attempts,
              nextAttemptAt: { lte: now },
              OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }],
            },
            data: { lockedUntil: new Date(this.now() + CLAIM_MS) },
          });
          if (claimed.count === 1) await this.send(row);
        }),
      );
      if (due.length < BATCH) return;
    }
  }

  private async send(row: { id: string; webhookId: string; eventId: string; event: string; payload: string; attempts: number }): Promise<DeliveryOutcome> {
    const hook = await this.database.webhook.findUnique({ where: { id: row.webhookId } });
    if (!hook) {
      await this.database.webhookDelivery.update({ where: { id: row.id }, data: { status: "failed", lastError: "webhook deleted", lockedUntil: null } });
      return { delivered: false, status: null, error: "webhook deleted" };
    }
    const headers: Record<string, string> = { "x-gateway-event": row.event, "x-gateway-event-id": row.eventId, "user-agent": "model-gateway-webhooks" };
    let result: Awaited<ReturnType<typeof postPublicUrl>>;
    try {
      if (hook.secretEncrypted) headers["x-gateway-signature"] = signatureOf(row.payload, decryptSecret(hook.secretEncrypted, this.encryptionKeys));
      result = await postPublicUrl(hook.url, row.payload, headers, SEND_TIMEOUT_MS);
    } catch (error) {
      // A secret no key opens (ENCRYPTION_KEY rotated without it): an attempt that failed, not a row stuck.
      result = { error: error instanceof Error ? error.message : String(error) };
    }
    const attempts = row.attempts + 1;
    if ("status" in result && result.status >= 200 && result.status < 300) {
      await this.database.webhookDelivery.update({
        where: { id: row.id },
        data: { status: "delivered", attempts, lastStatus: result.status, lastError: null, lockedUntil: null, deliveredAt: new Date(this.now()) },
      });
      return { delivered: true, status: result.status };
    }
    const error = "status" in result ? `HTTP ${result.status}` : result.error;
    const step = RETRY_STEPS[attempts - 1];
    await this.database.webhookDelivery.update({
      where: { id: row.id },
      data: {
        status: step === undefined ? "failed" : "pending",
        attempts,
        lastStatus: "status" in result ? result.status : null,
        lastError: error.slice(0, 500),
        lockedUntil: null,
        ...(step === undefined ? {} : { nextAttemptAt: new Date(this.now() + step * this.options.retryBaseMs) }),
      },
    });
    return { delivered: false, status: "status" in result ? result.status : null, error };
  }

  /** Forgets deliveries older than 30 days, once an hour. */
  private async sweep(): Promise<void> {
    if (this.now() - this.lastSweep < 3600_000) return;
    this.lastSweep = this.now();
    await this.database.webhookDelivery.deleteMany({ where: { createdAt: { lt: new Date(this.now() - KEEP_DELIVERIES_MS) } } });
  }
}
