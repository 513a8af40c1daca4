import { hash } from "node:crypto";
import type { HeaderReader } from "@/lib/canonical/api-types";
import type { SharedState } from "@/lib/state/shared-state";
import type { Channel } from "./channel";

// Coding agents resend a long, growing prefix every turn; the vendor serves it from its
// prompt cache (a tenth of the price, faster) only when the turn reaches the same account.
// So a session stays on the channel and key that served its last successful turn. Pins
// live in the shared state (Redis with many processes) under a sliding TTL: losing one
// costs one cold cache, never a wrong answer.

/** Headers agents name their session in, in the order they are believed. */
const SESSION_HEADERS = ["session-id", "session_id", "x-claude-code-session-id", "x-session-affinity"];
const MAX_SESSION_LENGTH = 512;

/** Where a request's session may come from, as its format's parser found them. */
export interface SessionSources {
  /** OpenAI chat and Responses `prompt_cache_key`. */
  promptCacheKey?: unknown;
  headers: HeaderReader;
  /** Anthropic `metadata.user_id` (Claude Code puts its session in it). */
  anthropicUserId?: unknown;
}

/** The request's session: the first of body `prompt_cache_key`, the agents' session headers, Anthropic `metadata.user_id`. */
export function requestSession(sources: SessionSources): string | undefined {
  const candidates = [sources.promptCacheKey, ...SESSION_HEADERS.map((name) => sources.headers.get(name)), sources.anthropicUserId];
  for (const candidate of candidates) {
    if (typeof candidate === "string" && candidate.length > 0 && candidate.length <= MAX_SESSION_LENGTH) return candidate;
  }
  return undefined;
}

/** What the log, the pin store and an upstream's cache hint see of a session: never the id itself. */
export function sessionHash(session: string): string {
  return hash("sha256", `gateway-session:${session}`, "hex").slice(0, 32);
}

/** The channel and key (by fingerprint) that served a session's last successful turn. */
export interface SessionPin {
  channelId: string;
  key: string;
}

/** One request's view of its session: where it was pinned, and the pin to keep after it. */
export class SessionTurn {
  constructor(
    private readonly affinity: SessionAffinity,
    /** The session's hash: its name in the log, and the upstream's cache key. */
    readonly hash: string,
    /** The pin's name in the store: the session within its caller's own space. */
    private readonly pinName: string,
    private readonly pin: SessionPin | undefined,
  ) {}

  /**
   * The candidates with the pinned channel first, when it is among those routing would try
   * first (its top priority) and still a candidate (enabled, serving the model). A pinned
   * channel that is cooling down or has an open circuit is skipped by the attempt loop as
   * any other, and the session moves to whichever serves.
   */
  order(candidates: Channel[]): Channel[] {
    if (!this.pin || candidates.length < 2) return candidates;
    const top = candidates[0]!.priority;
    const index = candidates.findIndex((channel) => channel.id === this.pin!.channelId);
    if (index <= 0 || candidates[index]!.priority !== top) return candidates;
    return [candidates[index]!, ...candidates.slice(0, index), ...candidates.slice(index + 1)];
  }

  /** The pinned key's fingerprint on this channel, if the session was pinned to it. */
  preferredKey(channelId: string): string | undefined {
    return this.pin?.channelId === channelId ? this.pin.key : undefined;
  }

  /** A successful turn: the session stays here from now on (written only when it moved). */
  served(channelId: string, key: string): void {
    if (this.pin?.channelId === channelId && this.pin.key === key) return;
    this.affinity.store(this.pinName, { channelId, key });
  }
}

export class SessionAffinity {
  constructor(
    private readonly shared: SharedState,
    /** SESSION_AFFINITY_TTL; 0 turns affinity off. */
    private readonly ttlSeconds: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /**
   * The session's turn, its pin looked up (one shared-state read, renewing the TTL); undefined
   * without a session or with affinity off. `owner` names whose session it is (the token or
   * user): two callers sending the same session id never share, or move, each other's pin.
   */
  async begin(session: string | undefined, owner: string): Promise<SessionTurn | undefined> {
    if (!session || this.ttlSeconds <= 0) return undefined;
    const hash = sessionHash(session);
    // The session's hash within its owner's space: no second hash on the request path.
    const pinName = `${owner}:${hash}`;
    let pin: SessionPin | undefined;
    try {
      pin = parsePin(await this.shared.getSliding(pinKey(pinName), this.ttlSeconds));
    } catch (error) {
      // A store that does not answer costs the cache, not the request.
      this.onError(error);
    }
    return new SessionTurn(this, hash, pinName, pin);
  }

  store(pinName: string, pin: SessionPin): void {
    this.shared.putSliding(pinKey(pinName), pin, this.ttlSeconds).catch(this.onError);
  }
}

function pinKey(pinName: string): string {
  return `affinity:${pinName}`;
}

function parsePin(value: unknown): SessionPin | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { channelId, key } = value as Record<string, unknown>;
  return typeof channelId === "string" && typeof key === "string" ? { channelId, key } : undefined;
}
