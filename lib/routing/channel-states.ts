import type { SharedState } from "@/lib/state/shared-state";

export type CircuitState = "closed" | "open" | "half-open";

export interface CircuitOptions {
  /** Consecutive failures that open a circuit. */
  consecutiveFailures: number;
  /** Error ratio over the window that opens it (with at least `minimumRequests`). */
  errorRatio: number;
  windowMs: number;
  minimumRequests: number;
  /** How long an open circuit refuses before letting one probe through. */
  openMs: number;
}

type Circuit = {
  state: CircuitState;
  consecutive: number;
  /** Outcomes inside the window, in BUCKETS time slices: constant memory at any request rate. */
  buckets: { start: number; total: number; failed: number }[];
  openUntil: number;
  probing: boolean;
  reason: string | null;
};

type StateEvent =
  | { type: "circuit-open"; key: string; until: number; reason: string }
  | { type: "circuit-closed"; key: string }
  | { type: "cool-down"; key: string; until: number; reason: string; kind?: CoolDownKind };

/** Why a channel rests for a model: its upstream's rate limit (come back later: 429), or it refused the model (503). */
export type CoolDownKind = "rate-limit" | "unavailable";

const TOPIC = "channel-state";
const BUCKETS = 10;

export interface ChannelStateView {
  circuit: CircuitState;
  reason: string | null;
  /** Epoch ms until which the channel (or one of its models) is skipped. */
  until: number | null;
  models: Record<string, { circuit: CircuitState; coolDownUntil: number | null; reason: string | null }>;
}

/**
 * Circuit breakers and cool-downs per channel and per channel+model. Failures are
 * counted in each process; the transitions (opened, closed, cooled down) are broadcast
 * through the shared state so every process skips the same channels.
 */
export class ChannelStates {
  private readonly circuits = new Map<string, Circuit>();
  private readonly coolDowns = new Map<string, { until: number; reason: string; kind: CoolDownKind }>();
  private opened: (channelId: string, reason: string) => void = () => {};

  constructor(
    private readonly shared: SharedState,
    private readonly options: CircuitOptions,
    private readonly now: () => number = Date.now,
  ) {
    shared.subscribe((topic, message) => {
      if (topic === TOPIC) this.apply(message as StateEvent);
    });
  }

  /**
   * Whether an attempt may go to the channel for this model now. A half-open circuit
   * lets exactly one probe through; `release` must follow with its outcome.
   */
  tryAcquire(channelId: string, model: string): boolean {
    const now = this.now();
    for (const key of [channelId, modelKey(channelId, model)]) {
      const coolDown = this.coolDowns.get(key);
      if (coolDown && coolDown.until > now) return false;
    }
    const keys = [channelId, modelKey(channelId, model)];
    const circuits = keys.map((key) => this.circuits.get(key));
    for (const circuit of circuits) {
      if (!circuit || circuit.state === "closed") continue;
      if (circuit.state === "open" && circuit.openUntil > now) return false;
      if (circuit.probing) return false;
    }
    for (const circuit of circuits) {
      if (circuit && circuit.state !== "closed") {
        circuit.state = "half-open";
        circuit.probing = true;
      }
    }
    return true;
  }

  /**
   * Why these channels, all skipped for this model, are skipped, and when the first comes
   * back (epoch ms, for Retry-After). `rateLimited` when each is skipped only by an
   * upstream's rate-limit cool-down, not by an open circuit: the caller is then told to
   * come back later (429), not that the service is failing (503).
   */
  skipped(channelIds: string[], model: string): { until: number | null; rateLimited: boolean; modelRefused: boolean } {
    const now = this.now();
    let earliest: number | null = null;
    let rateLimited = channelIds.length > 0;
    // Every one rests because its upstream refused this model.
    let modelRefused = channelIds.length > 0;
    for (const id of channelIds) {
      let until = 0;
      let refused = false;
      for (const key of [id, modelKey(id, model)]) {
        const coolDown = this.coolDowns.get(key);
        if (coolDown && coolDown.until > now) {
          until = Math.max(until, coolDown.until);
          if (coolDown.kind !== "rate-limit") rateLimited = false;
          if (coolDown.kind === "unavailable") refused = true;
        }
        const circuit = this.circuits.get(key);
        if (circuit && circuit.state !== "closed" && (circuit.openUntil > now || circuit.probing)) {
          rateLimited = false;
          until = Math.max(until, circuit.openUntil);
        }
      }
      if (!refused) modelRefused = false;
      if (until > 0 && (earliest === null || until < earliest)) earliest = until;
    }
    return { until: earliest, rateLimited, modelRefused };
  }

  recordSuccess(channelId: string, model: string): void {
    for (const key of [channelId, modelKey(channelId, model)]) {
      const circuit = this.circuit(key);
      this.push(circuit, false);
      circuit.consecutive = 0;
      circuit.probing = false;
      if (circuit.state !== "closed") {
        this.apply({ type: "circuit-closed", key });
        this.shared.publish(TOPIC, { type: "circuit-closed", key } satisfies StateEvent);
      }
    }
  }

  /** Ends an attempt that says nothing about the channel (the caller left, or sent a bad request). */
  release(channelId: string, model: string): void {
    for (const key of [channelId, modelKey(channelId, model)]) {
      const circuit = this.circuits.get(key);
      if (circuit) circuit.probing = false;
    }
  }

  /** Told when this process opens a channel's own circuit (not one of its models'). */
  onCircuitOpen(listener: (channelId: string, reason: string) => void): void {
    this.opened = listener;
  }

  /** A failure that was the channel's fault (not the caller's). */
  recordFailure(channelId: string, model: string, reason: string): void {
    for (const key of [channelId, modelKey(channelId, model)]) {
      const circuit = this.circuit(key);
      this.push(circuit, true);
      circuit.consecutive += 1;
      let total = 0;
      let failures = 0;
      for (const bucket of circuit.buckets) {
        total += bucket.total;
        failures += bucket.failed;
      }
      const tripped =
        circuit.state === "half-open" ||
        circuit.consecutive >= this.options.consecutiveFailures ||
        (total >= this.options.minimumRequests && failures / total >= this.options.errorRatio);
      circuit.probing = false;
      if (tripped && circuit.state !== "open") {
        this.shared.publish(TOPIC, { type: "circuit-open", key, until: this.now() + this.options.openMs, reason } satisfies StateEvent);
        // Applied here at once too, so the very next pick in this process skips it.
        this.apply({ type: "circuit-open", key, until: this.now() + this.options.openMs, reason });
        if (key === channelId) this.opened(channelId, reason);
      }
    }
  }

  /** Skips the channel for this model until `until` (an upstream's Retry-After, or a model it refused). */
  coolDown(channelId: string, model: string, until: number, reason: string, kind: CoolDownKind = "rate-limit"): void {
    const event: StateEvent = { type: "cool-down", key: modelKey(channelId, model), until, reason, kind };
    this.apply(event);
    this.shared.publish(TOPIC, event);
  }

  view(channelId: string): ChannelStateView {
    const now = this.now();
    const circuit = this.circuits.get(channelId);
    const models: ChannelStateView["models"] = {};
    const prefix = `${channelId}\u0000`;
    for (const [key, value] of this.circuits) {
      if (key.startsWith(prefix) && value.state !== "closed") {
        models[key.slice(prefix.length)] = { circuit: value.state, coolDownUntil: null, reason: value.reason };
      }
    }
    for (const [key, value] of this.coolDowns) {
      if (!key.startsWith(prefix) || value.until <= now) continue;
      const model = key.slice(prefix.length);
      models[model] = { circuit: models[model]?.circuit ?? "closed", coolDownUntil: value.until, reason: value.reason };
    }
    return {
      circuit: circuit?.state ?? "closed",
      reason: circuit && circuit.state !== "closed" ? circuit.reason : null,
      until: circuit?.state === "open" ? circuit.openUntil : null,
      models,
    };
  }

  private apply(event: StateEvent): void {
    switch (event.type) {
      case "circuit-open": {
        const circuit = this.circuit(event.key);
        circuit.state = "open";
        circuit.openUntil = Math.max(circuit.openUntil, event.until);
        circuit.reason = event.reason;
        circuit.probing = false;
        break;
      }
      case "circuit-closed": {
        const circuit = this.circuit(event.key);
        circuit.state = "closed";
        circuit.consecutive = 0;
        circuit.buckets = [];
        circuit.openUntil = 0;
        circuit.reason = null;
        circuit.probing = false;
        break;
      }
      case "cool-down": {
        const current = this.coolDowns.get(event.key);
        if (!current || current.until < event.until) this.coolDowns.set(event.key, { until: event.until, reason: event.reason, kind: event.kind ?? "rate-limit" });
        break;
      }
    }
  }

  private circuit(key: string): Circuit {
    let circuit = this.circuits.get(key);
    if (!circuit) {
      circuit = { state: "closed", consecutive: 0, buckets: [], openUntil: 0, probing: false, reason: null };
      this.circuits.set(key, circuit);
    }
    return circuit;
  }

  private push(circuit: Circuit, failed: boolean): void {
    const now = this.now();
    const width = this.options.windowMs / BUCKETS;
    const start = now - (now % width);
    let bucket = circuit.buckets.at(-1);
    if (!bucket || bucket.start !== start) {
      bucket = { start, total: 0, failed: 0 };
      circuit.buckets.push(bucket);
      const oldest = now - this.options.windowMs;
      while (circuit.buckets[0]!.start + width <= oldest) circuit.buckets.shift();
    }
    bucket.total += 1;
    if (failed) bucket.failed += 1;
  }
}

function modelKey(channelId: string, model: string): string {
  return `${channelId}\u0000${model}`;
}
