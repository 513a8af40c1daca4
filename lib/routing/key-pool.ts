import { createHash } from "node:crypto";
import type { SharedState } from "@/lib/state/shared-state";
import type { Channel } from "./channel";

// A channel may hold several upstream keys of one account holder (a pool). Requests spread
// over its healthy keys; a key the upstream refuses (401/403) is disabled alone and a key it
// rate-limits (429) cools alone, so one revoked or busy key never takes the others down.
// Only when no key is left does the channel itself fail (auto-disabled or cooled as before).
//
// State: a disable is persisted on the channel row (`disabledKeys`, so it survives a
// restart, as a channel's auto-disable does) and broadcast so every process stops using the
// key at once; a cool-down is broadcast and kept in each process's memory only, like a
// channel's cool-down (losing it on restart costs one more 429 at most).

/** One key of a pool, with the channel as its transport must see it (`apiKey` = this key). */
export interface PoolKey {
  /** A stable short hash of the key: its name in state, events and session pins, never the key. */
  fingerprint: string;
  /** The key's last four characters, what answers and logs may show. */
  hint: string;
  /** The channel with this key as its `apiKey`: one object per key, kept while the channel is. */
  channel: Channel;
  /** Whether the channel has other keys (failures then belong to the key alone). */
  pooled: boolean;
}

export type KeyState = "active" | "cooling" | "disabled";

export interface KeyView {
  key: string;
  state: KeyState;
  reason: string | null;
  /** When a cooling key is back (ISO). */
  until: string | null;
}

type KeyEvent =
  | { type: "key-cool-down"; id: string; until: number; reason: string }
  | { type: "key-disabled"; id: string; reason: string }
  | { type: "keys-reset"; channelId: string };

const TOPIC = "key-state";
/** A 429 without Retry-After still rests the key a moment, so the next request takes another. */
const DEFAULT_COOL_DOWN_SECONDS = 5;
/** How long this process holds a disable it heard of before the channel row shows it. */
const PENDING_DISABLE_MS = 30_000;

export function keyFingerprint(key: string): string {
  return createHash("sha256").update(`gateway-key:${key}`).digest("hex").slice(0, 16);
}

export function keyHint(key: string): string {
  return `…${key.slice(-4)}`;
}

/** The keys of a channel's pool: `apiKeys` when set, else its one `apiKey` (or none). */
export function poolKeys(channel: Pick<Channel, "apiKey" | "apiKeys">): string[] {
  if (channel.apiKeys && channel.apiKeys.length > 0) return channel.apiKeys;
  return channel.apiKey ? [channel.apiKey] : [];
}

export class KeyPools {
  private readonly keysByChannel = new WeakMap<Channel, PoolKey[]>();
  private readonly coolDowns = new Map<string, { until: number; reason: string }>();
  private readonly pendingDisables = new Map<string, { reason: string; until: number }>();

  constructor(
    private readonly shared: SharedState,
    /** Writes a disable onto the channel row (off the request path). */
    private readonly persistDisable: (channelId: string, fingerprint: string, reason: string) => void,
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    shared.subscribe((topic, message) => {
      if (topic === TOPIC) this.apply(message as KeyEvent);
    });
  }

  /** The pool's keys, built once per channel object (so each key's transport is too). */
  keysOf(channel: Channel): PoolKey[] {
    let keys = this.keysByChannel.get(channel);
    if (!keys) {
      const pool = poolKeys(channel);
      keys =
        pool.length <= 1
          ? [{ fingerprint: pool[0] ? keyFingerprint(pool[0]) : "", hint: pool[0] ? keyHint(pool[0]) : "", channel, pooled: false }]
          : pool.map((key) => ({ fingerprint: keyFingerprint(key), hint: keyHint(key), channel: { ...channel, apiKey: key }, pooled: true }));
      this.keysByChannel.set(channel, keys);
    }
    return keys;
  }

  /**
   * The key for the next attempt on `channel`: `preferred` (a session's pinned key) while it
   * is healthy, else a random healthy one; undefined when every key is disabled or cooling.
   */
  pick(channel: Channel, preferred?: string): PoolKey | undefined {
    const keys = this.keysOf(channel);
    if (keys.length === 1) return keys[0];
    const now = this.now();
    const healthy = keys.filter((key) => this.stateOf(channel, key, now).state === "active");
    if (healthy.length === 0) return undefined;
    return healthy.find((key) => key.fingerprint === preferred) ?? healthy[Math.floor(this.random() * healthy.length)];
  }

  /**
   * Takes a failure that is about the key (refused credentials, a rate limit) out on that key
   * alone. True when another key of the channel can still serve: the channel is then not to
   * blame. False for a channel of one key, or when this was its last: the channel fails as before.
   */
  keyFailed(channel: Channel, key: PoolKey, failure: { disableReason: string | null; rateLimitSeconds: number | null }): boolean {
    if (!key.pooled) return false;
    const id = stateId(channel.id, key.fingerprint);
    if (failure.disableReason) {
      const event: KeyEvent = { type: "key-disabled", id, reason: failure.disableReason.slice(0, 500) };
      this.apply(event);
      void this.shared.publish(TOPIC, event);
      this.persistDisable(channel.id, key.fingerprint, event.reason);
    } else if (failure.rateLimitSeconds !== null) {
      const seconds = failure.rateLimitSeconds > 0 ? failure.rateLimitSeconds : DEFAULT_COOL_DOWN_SECONDS;
      const event: KeyEvent = { type: "key-cool-down", id, until: this.now() + seconds * 1000, reason: `rate limited by the upstream for ${seconds} s` };
      this.apply(event);
      void this.shared.publish(TOPIC, event);
    } else return false;
    return this.pick(channel) !== undefined;
  }

  /** When the first cooling key of the channel is back (epoch ms), or null if none cools. */
  nextKeyBack(channel: Channel): number | null {
    const now = this.now();
    const times = this.keysOf(channel)
      .map((key) => this.stateOf(channel, key, now))
      .filter((view) => view.state === "cooling")
      .map((view) => view.until!);
    return times.length > 0 ? Math.min(...times) : null;
  }

  /** Each key as answers may show it: last four characters and state. */
  describe(channel: Channel): KeyView[] {
    const now = this.now();
    return this.keysOf(channel)
      .filter((key) => key.hint !== "")
      .map((key) => {
        const state = this.stateOf(channel, key, now);
        return { key: key.hint, state: state.state, reason: state.reason, until: state.until ? new Date(state.until).toISOString() : null };
      });
  }

  private stateOf(channel: Channel, key: PoolKey, now: number): { state: KeyState; reason: string | null; until: number | null } {
    const id = stateId(channel.id, key.fingerprint);
    const stored = channel.disabledKeys?.[key.fingerprint];
    if (stored) return { state: "disabled", reason: stored, until: null };
    const pending = this.pendingDisables.get(id);
    if (pending && pending.until > now) return { state: "disabled", reason: pending.reason, until: null };
    const coolDown = this.coolDowns.get(id);
    if (coolDown && coolDown.until > now) return { state: "cooling", reason: coolDown.reason, until: coolDown.until };
    return { state: "active", reason: null, until: null };
  }

  private apply(event: KeyEvent): void {
    if (event.type === "keys-reset") {
      const prefix = `${event.channelId}\u0000`;
      for (const id of this.pendingDisables.keys()) if (id.startsWith(prefix)) this.pendingDisables.delete(id);
      for (const id of this.coolDowns.keys()) if (id.startsWith(prefix)) this.coolDowns.delete(id);
      return;
    }
    if (event.type === "key-disabled") {
      this.pendingDisables.set(event.id, { reason: event.reason, until: this.now() + PENDING_DISABLE_MS });
      return;
    }
    const current = this.coolDowns.get(event.id);
    if (!current || current.until < event.until) this.coolDowns.set(event.id, { until: event.until, reason: event.reason });
    // Expired entries go when the map grows: keys are few, so this stays small.
    if (this.coolDowns.size > 1000) {
      const now = this.now();
      for (const [id, value] of this.coolDowns) if (value.until <= now) this.coolDowns.delete(id);
    }
  }

  /** Every process forgets the channel's key states it holds in memory (an administrator saved its keys, or cleared it). */
  async reset(channelId: string): Promise<void> {
    const event: KeyEvent = { type: "keys-reset", channelId };
    this.apply(event);
    await this.shared.publish(TOPIC, event);
  }
}

function stateId(channelId: string, fingerprint: string): string {
  return `${channelId}\u0000${fingerprint}`;
}
