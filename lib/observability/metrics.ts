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

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export class GatewayMetrics {
  readonly registry = new client.Registry();
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

  /** Counts one finished request. Unrouted requests (unknown models) share one model label. */
  observe(entry: RequestLogEntry): void {
    const channel = entry.attempts?.find((attempt) => attempt.channelId === entry.channelId)?.channelName ?? "";
    const model = entry.channelId ? (entry.model ?? "") : "(unrouted)";
    const status = String(entry.status);
    this.requests.inc({ endpoint: entry.endpoint, model, channel, status });
    this.duration.observe({ endpoint: entry.endpoint, model, channel, status }, entry.latencyMs / 1000);
    if (entry.firstTokenMs !== null && entry.stream) this.firstToken.observe({ endpoint: entry.endpoint, model, channel }, entry.firstTokenMs / 1000);
    for (const attempt of entry.attempts ?? []) {
      if (attempt.error !== null) this.upstreamErrors.inc({ channel: attempt.channelName, status: String(attempt.status) });
    }
    if (entry.promptTokens > 0) this.tokens.inc({ model, channel, direction: "prompt" }, entry.promptTokens);
    if (entry.completionTokens > 0) this.tokens.inc({ model, channel, direction: "completion" }, entry.completionTokens);
    if (entry.costUsd > 0) this.cost.inc({ model, channel }, entry.costUsd);
  }

  /** Counts rows one retention batch deleted. */
  swept(kind: "request_logs" | "responses", rows: number): void {
    if (rows > 0) this.retentionDeleted.inc({ kind }, rows);
  }
}
