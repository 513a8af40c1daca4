import client from "prom-client";
import type { RequestLogEntry } from "@/lib/usage/request-log-entry";

// Prometheus metrics for this process (each instance is scraped on its own), fed from
// the one log entry every request produces, so the counts match the usage log.

export interface MetricsSources {
  /** Rows waiting to be written. */
  logQueueDepth(): number;
  /** Per channel: 1 when its circuit is open (or it is cooling down), else 0. */
  circuitStates(): { channel: string; open: boolean }[];
}

/** One label combination's requests since the last drain. */
interface PendingSeries {
  endpoint: string;
  model: string;
  channel: string;
  status: string;
  count: number;
  durations: number[];
  firstTokens: number[];
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

// Entries are counted in batches (on each scrape, or once this many are waiting): prom-client
// hashes and validates labels on every update, which per request costs more than the request's routing.
const MAX_PENDING = 1024;

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class GatewayMetrics {
  readonly registry = new client.Registry();
  private pending: RequestLogEntry[] = [];
  private readonly requests = new client.Counter({
    name: "gateway_requests_total",
    help: "API requests, by endpoint, model, channel and HTTP status.",
    labelNames: ["endpoint", "model", "channel", "status"] as const,
    registers: [this.registry],
  });
  private readonly duration = new client.Histogram({
    name: "gateway_request_duration_seconds",
    help: "Time from request to the end of the response.",
    labelNames: ["endpoint", "model", "channel", "status"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly firstToken = new client.Histogram({
    name: "gateway_time_to_first_token_seconds",
    help: "Time from request to the first generated token, for streamed answers.",
    labelNames: ["endpoint", "model", "channel"] as const,
    buckets: SECONDS,
    registers: [this.registry],
  });
  private readonly upstreamErrors = new client.Counter({
    name: "gateway_upstream_errors_total",
    help: "Failed upstream attempts, by channel and upstream status (0: no answer).",
    labelNames: ["channel", "status"] as const,
    registers: [this.registry],
  });
  private readonly tokens = new client.Counter({
    name: "gateway_tokens_total",
    help: "Tokens used, by model, channel and direction.",
    labelNames: ["model", "channel", "direction"] as const,
    registers: [this.registry],
  });
  private readonly cost = new client.Counter({
    name: "gateway_cost_usd_total",
    help: "Cost in US dollars from the channels' prices.",
    labelNames: ["model", "channel"] as const,
    registers: [this.registry],
  });

  private readonly retentionDeleted = new client.Counter({
    name: "gateway_retention_deleted_rows_total",
    help: "Rows the retention sweep deleted, by kind (request_logs, responses).",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  constructor(sources: MetricsSources) {
    new client.Gauge({
      name: "gateway_log_queue_depth",
      help: "Usage log rows waiting to be written.",
      registers: [this.registry],
      collect() {
        this.set(sources.logQueueDepth());
      },
    });
    new client.Gauge({
      name: "gateway_channel_circuit_open",
      help: "1 while a channel's circuit is open or it is cooling down.",
      labelNames: ["channel"] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { channel, open } of sources.circuitStates()) this.set({ channel }, open ? 1 : 0);
      },
    });
    client.collectDefaultMetrics({ register: this.registry, prefix: "gateway_" });
  }

  /** Counts one finished request (in the next batch). */
  observe(entry: RequestLogEntry): void {
    this.pending.push(entry);
    if (this.pending.length >= MAX_PENDING) this.drain();
  }

  /** The Prometheus text, every request seen so far counted. */
  async render(): Promise<string> {
    this.drain();
    return this.registry.metrics();
  }

  /** Adds the waiting entries to the metrics, one update per label combination where the metric allows. Unrouted requests (unknown models) share one model label. */
  drain(): void {
    if (this.pending.length === 0) return;
    const entries = this.pending;
    this.pending = [];
    const batch = new Map<string, PendingSeries>();
    for (const entry of entries) {
      const channel = entry.attempts?.find((attempt) => attempt.channelId === entry.channelId)?.channelName ?? "";
      const model = entry.channelId ? (entry.model ?? "") : "(unrouted)";
      const key = `${entry.endpoint}\u0000${model}\u0000${channel}\u0000${entry.status}`;
      let series = batch.get(key);
      if (!series) {
        series = {
          endpoint: entry.endpoint,
          model,
          channel,
          status: String(entry.status),
          count: 0,
          durations: [],
          firstTokens: [],
          promptTokens: 0,
          completionTokens: 0,
          costUsd: 0,
        };
        batch.set(key, series);
      }
      series.count += 1;
      series.durations.push(entry.latencyMs / 1000);
      if (entry.firstTokenMs !== null && entry.stream) series.firstTokens.push(entry.firstTokenMs / 1000);
      series.promptTokens += entry.promptTokens;
      series.completionTokens += entry.completionTokens;
      series.costUsd += entry.costUsd;
      if (entry.attempts) {
        for (const attempt of entry.attempts) {
          if (attempt.error !== null) this.upstreamErrors.inc({ channel: attempt.channelName, status: String(attempt.status) });
        }
      }
    }
    for (const { endpoint, model, channel, status, ...series } of batch.values()) {
      this.requests.inc({ endpoint, model, channel, status }, series.count);
      for (const seconds of series.durations) this.duration.observe({ endpoint, model, channel, status }, seconds);
      for (const seconds of series.firstTokens) this.firstToken.observe({ endpoint, model, channel }, seconds);
      if (series.promptTokens > 0) this.tokens.inc({ model, channel, direction: "prompt" }, series.promptTokens);
      if (series.completionTokens > 0) this.tokens.inc({ model, channel, direction: "completion" }, series.completionTokens);
      if (series.costUsd > 0) this.cost.inc({ model, channel }, series.costUsd);
    }
  }

  /** Counts rows one retention batch deleted. */
  swept(kind: "request_logs" | "responses" | "audit", rows: number): void {
    if (rows > 0) this.retentionDeleted.inc({ kind }, rows);
  }
}
