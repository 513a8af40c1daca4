import { collectResponse, type ChatResponse } from "@/lib/canonical/collect-response";
import { GatewayError, isGatewayError } from "@/lib/canonical/gateway-error";
import { messageText, type ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { env } from "@/lib/env";
import { jsonResponse, type ApiResponse } from "@/lib/http/api-types";
import { checkModelAllowed, checkQuota } from "@/lib/limits/check-quota";
import { logger } from "@/lib/logger";
import type { CallContext, RelayRequest } from "@/lib/providers/provider";
import { providers } from "@/lib/providers/registry";
import type { Channel } from "@/lib/routing/channel";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import type { GatewayContext } from "./with-api-key";

export interface ChatPlan {
  chat: ChatRequest;
  /** The raw client body, for upstreams that speak the client's own format. */
  relay?: RelayRequest;
  renderResponse(response: ChatResponse): unknown;
  renderStream(events: AsyncIterable<StreamEvent>): AsyncIterable<string>;
}

const MAX_ATTEMPTS = 3;

/** Route -> provider call (with failover before any byte is sent) -> rendered response. */
export async function callChat(context: GatewayContext, plan: ChatPlan): Promise<ApiResponse> {
  const { chat } = plan;
  const { log, token, runtime, format } = context;
  log.model = chat.model;
  log.stream = chat.stream;
  log.promptText = () => [chat.system ?? "", ...chat.messages.map(messageText)].join("\n");

  checkModelAllowed(token, chat.model);
  checkQuota(token, runtime.logs.pendingTokens(token.id));
  const candidates = runtime.channels.candidates(chat.model);
  if (candidates.length === 0) {
    throw new GatewayError("not_found", `The model '${chat.model}' does not exist or you do not have access to it.`, {
      code: "model_not_found",
      param: "model",
    });
  }

  let lastError: unknown;
  for (const channel of candidates.slice(0, MAX_ATTEMPTS)) {
    const provider = providers[channel.type];
    const callContext = callContextFor(context, channel, chat.model);
    try {
      const relay = plan.relay && provider.relay?.[format.name];
      let response: ApiResponse;
      if (relay) response = await relay(plan.relay!, callContext);
      else {
        const events = meterEvents(await provider.chat(chat, callContext), log.meter);
        response = chat.stream
          ? { status: 200, headers: { ...SSE_HEADERS }, body: plan.renderStream(events) }
          : jsonResponse(200, plan.renderResponse(await collectResponse(events)));
      }
      runtime.channelHealth.record(channel.id, { error: null, latencyMs: Math.round(performance.now() - log.meter.startedAt) });
      return response;
    } catch (error) {
      lastError = error;
      if (!context.request.signal.aborted) {
        // A 4xx about the caller's request says nothing bad about the channel.
        runtime.channelHealth.record(channel.id, {
          error: channelAtFault(error) ? ((error as Error).message ?? String(error)) : null,
          latencyMs: Math.round(performance.now() - log.meter.startedAt),
        });
      }
      if (!shouldFailOver(error) || context.request.signal.aborted) throw error;
      log.warnings.push(`channel ${channel.id} failed (${(error as Error).message}); trying the next one`);
      logger.warn({ channelId: channel.id, requestId: log.id, err: error }, "upstream failed; failing over");
    }
  }
  throw lastError;
}

/** The provider's view of one attempt on `channel`; the log records which channel it was. */
export function callContextFor(context: GatewayContext, channel: Channel, model: string): CallContext {
  const upstreamModel = channel.modelMap[model] ?? model;
  context.log.channelId = channel.id;
  context.log.upstreamModel = upstreamModel;
  return {
    channel,
    upstreamModel,
    http: context.upstream,
    signal: context.request.signal,
    timeoutMs: env.UPSTREAM_TIMEOUT_MS,
    meter: context.log.meter,
    warnings: context.log.warnings,
  };
}

function channelAtFault(error: unknown): boolean {
  if (!isGatewayError(error)) return true;
  return shouldFailOver(error) || error.status === 401 || error.status === 403 || error.status === 402;
}

function shouldFailOver(error: unknown): boolean {
  if (!isGatewayError(error)) return false;
  return error.kind === "bad_gateway" || error.kind === "timeout" || error.kind === "overloaded" || error.status >= 500;
}

async function* meterEvents(events: AsyncIterable<StreamEvent>, meter: UsageMeter): AsyncGenerator<StreamEvent> {
  for await (const event of events) {
    switch (event.type) {
      case "text-delta":
      case "reasoning-delta":
        meter.recordOutput(event.text);
        break;
      case "tool-call-start":
        meter.recordOutput(event.name);
        break;
      case "tool-call-delta":
        meter.recordOutput(event.argumentsDelta);
        break;
      case "usage":
        meter.recordUsage(event.usage);
        break;
      case "error":
        meter.recordError(event.error);
        break;
    }
    yield event;
  }
}
