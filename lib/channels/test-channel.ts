import { collectResponse } from "@/lib/canonical/collect-response";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import type { ChatRequest } from "@/lib/canonical/request";
import { env } from "@/lib/env";
import { providers } from "@/lib/providers/registry";
import { RecordingUpstream, type UpstreamExchange } from "@/lib/providers/recording-upstream";
import type { Runtime } from "@/lib/runtime";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { recordChannelHealth } from "./channel-service";

export interface ChannelTestResult {
  ok: boolean;
  model: string;
  latencyMs: number;
  reply?: string;
  error?: string;
  status?: number;
  warnings: string[];
  exchanges: UpstreamExchange[];
}

/**
 * Sends a tiny real request through the channel's actual conversion path (canonical
 * request -> provider -> upstream -> canonical answer) and records the health.
 */
export async function testChannel(runtime: Runtime, channelId: string, model?: string): Promise<ChannelTestResult> {
  await runtime.channels.reload();
  const channel = runtime.channels.all().find((candidate) => candidate.id === channelId);
  if (!channel) return { ok: false, model: model ?? "", latencyMs: 0, error: "No such channel.", warnings: [], exchanges: [] };
  const publicModel = model ?? channel.models[0] ?? "";
  const request: ChatRequest = {
    model: publicModel,
    messages: [{ role: "user", content: [{ type: "text", text: "Reply with the single word: pong" }] }],
    stream: false,
    maxTokens: 16,
  };
  const recorder = new RecordingUpstream(runtime.upstream);
  const warnings: string[] = [];
  const started = performance.now();
  try {
    const events = await providers[channel.type].chat(request, {
      channel,
      upstreamModel: channel.modelMap[publicModel] ?? publicModel,
      http: recorder,
      signal: AbortSignal.timeout(Math.min(env.UPSTREAM_TIMEOUT_MS, 30_000)),
      timeoutMs: Math.min(env.UPSTREAM_TIMEOUT_MS, 30_000),
      meter: new UsageMeter(),
      warnings,
    });
    const response = await collectResponse(events);
    const latencyMs = Math.round(performance.now() - started);
    await recordChannelHealth(runtime, channel.id, { error: null, latencyMs });
    const reply = response.text || response.toolCalls.map((call) => `${call.name}(${call.arguments})`).join(", ");
    return { ok: true, model: publicModel, latencyMs, reply, warnings, exchanges: recorder.exchanges };
  } catch (thrown) {
    const error = toGatewayError(thrown);
    const latencyMs = Math.round(performance.now() - started);
    await recordChannelHealth(runtime, channel.id, { error: error.message, latencyMs });
    return { ok: false, model: publicModel, latencyMs, error: error.message, status: error.status, warnings, exchanges: recorder.exchanges };
  }
}
