import { LOOP_MESSAGE } from "./loop-probe";
import { collectResponse } from "@/lib/canonical/collect-response";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import type { ChatRequest } from "@/lib/canonical/request";
import { env } from "@/lib/env";
import { providers } from "@/lib/providers/registry";
import { RecordingUpstream, type UpstreamExchange } from "@/lib/providers/recording-upstream";
import type { Channel } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { isMissingPath, missingPathReason } from "@/lib/providers/base-url";
import { recordChannelHealth } from "./channel-service";

export interface ChannelTestResult {
  ok: boolean;
  model: string;
  latencyMs: number;
  reply?: string;
  error?: string;
  /** The upstream's HTTP status when it answered with an error. */
  upstreamStatus?: number;
  warnings: string[];
  exchanges: UpstreamExchange[];
}

/**
 * Sends a tiny real request through the channel's actual conversion path (canonical
 * request -> provider -> upstream -> canonical answer) and records the health.
 */
export async function testChannel(runtime: Runtime, channelId: string, model?: string, options: { record: boolean } = { record: true }): Promise<ChannelTestResult> {
  await runtime.channels.reload();
  const channel = runtime.channels.all().find((candidate) => candidate.id === channelId);
  if (!channel) return { ok: false, model: model ?? "", latencyMs: 0, error: "No such channel.", warnings: [], exchanges: [] };
  const result = await probeChannel(runtime, channel, model);
  if (options.record) await recordChannelHealth(runtime, channel.id, { error: result.ok ? null : (result.error ?? null), latencyMs: result.latencyMs });
  return result;
}

/** The test request against any channel, saved or not (a draft being checked before its save). */
export async function probeChannel(runtime: Runtime, channel: Channel, model?: string): Promise<ChannelTestResult> {
  const publicModel = model ?? channel.models[0] ?? "";
  const request: ChatRequest = {
    model: publicModel,
    messages: [{ role: "user", content: [{ type: "text", text: "Reply with the single word: pong" }] }],
    stream: false,
    maxTokens: 16,
  };
  const provider = providers[channel.type];
  if (!provider.probe) return { ok: false, model: publicModel, latencyMs: 0, error: "This channel type has no chat to test with.", warnings: [], exchanges: [] };
  const recorder = new RecordingUpstream(runtime.upstream);
  const upstreamModel = channel.modelMap[publicModel] ?? publicModel;
  const waitMs = Math.min(env.UPSTREAM_TIMEOUT_MS, 30_000);
  const warnings: string[] = [];
  const started = performance.now();
  try {
    const events = await provider.probe(request, {
      channel,
      upstreamModel,
      transport: runtime.providers[channel.type].transport(channel),
      // Sent as this deployment's own request: a base URL that leads back here is refused as a loop.
      hops: runtime.deploymentId,
      http: recorder,
      signal: new AbortController().signal,
      timeouts: { connectMs: Math.min(env.UPSTREAM_CONNECT_TIMEOUT_MS, waitMs), firstByteMs: waitMs, idleMs: waitMs, totalMs: waitMs },
      meter: new UsageMeter(),
      warnings,
    });
    const response = await collectResponse(events);
    const latencyMs = Math.round(performance.now() - started);
    const reply = response.text || response.toolCalls.map((call) => `${call.name}(${call.arguments})`).join(", ");
    return { ok: true, model: publicModel, latencyMs, reply, warnings, exchanges: recorder.exchanges };
  } catch (thrown) {
    const error = toGatewayError(thrown);
    const latencyMs = Math.round(performance.now() - started);
    // The same words real traffic records for a base URL that lacks the endpoint.
    const message =
      error.upstreamStatus === 508 ? LOOP_MESSAGE : isMissingPath(error, upstreamModel) ? missingPathReason(channel.type, channel.baseUrl, error.message) : error.message;
    return { ok: false, model: publicModel, latencyMs, error: message, upstreamStatus: error.upstreamStatus, warnings, exchanges: recorder.exchanges };
  }
}
