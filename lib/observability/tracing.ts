import { SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { env } from "@/lib/env";

// Optional OpenTelemetry traces: off unless OTEL_EXPORTER_OTLP_ENDPOINT is set. The API
// calls below are no-ops without a registered provider, so the hot path pays nothing.

export const tracer = trace.getTracer("model-gateway");

/** Registers an OTLP/HTTP exporter when configured; the SDK is only loaded then. */
export async function startTracing(): Promise<(() => Promise<void>) | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/sdk-trace-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const exporter = new OTLPTraceExporter({ url: `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, "")}/v1/traces` });
  const provider = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  return () => provider.shutdown();
}

/** Ends a span with the outcome of what it covered. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
  span.end();
}
