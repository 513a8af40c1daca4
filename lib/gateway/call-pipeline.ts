import { setTimeout as sleep } from "node:timers/promises";
import { GatewayError, isGatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import { missingPathReason } from "@/lib/channels/base-url";
import { recordAutoDisable } from "@/lib/channels/channel-service";
import { env } from "@/lib/env";
import { isAsyncIterable, type ApiResponse } from "@/lib/http/api-types";
import { priceFor } from "@/lib/limits/prices";
import { logger } from "@/lib/logger";
import { endSpan, tracer } from "@/lib/observability/tracing";
import type { Operation } from "@/lib/providers/operation";
import { providerServes, type CallContext, type Provider } from "@/lib/providers/provider";
import { providers } from "@/lib/providers/registry";
import { channelServes, type Channel } from "@/lib/routing/channel";
import type { AttemptRecord } from "@/lib/usage/request-log-entry";
import { classifyAttemptError, isCredentialRejection, isMissingPath } from "./attempt-outcome";
import { guardStream, primeStream } from "./prime-stream";
import { upstreamTimeouts } from "./upstream-timeouts";
import type { GatewayContext } from "./with-api-key";

/** A quick upper bound of a prompt's tokens for reservations: ~3 characters a token is more than any tokenizer gives for text. */
export function estimatePromptTokens(text: string): number {
  return Math.ceil(text.length / 3) + 16;
}

/** What one operation brings to the pipeline: its parse is done; its call and render remain. */
export interface CallPlan {
  operation: Operation;
  model: string;
  stream: boolean;
  /** The worst case this request may spend, reserved against quotas before the call. */
  estimate: { inputTokens: number; outputTokens: number };
  /** Only this channel may serve (a continuation of a response it created). */
  pinnedChannelId?: string;
  /** Whether a channel's provider can serve this request (defaults to the operation's support). */
  supports?(provider: Provider, channel: Channel): boolean;
  /**
   * One upstream attempt. A streamed body's first item is awaited by the pipeline before
   * anything is sent, so a failure there still fails over.
   */
  attempt(channel: Channel, call: CallContext, hooks: AttemptHooks): Promise<ApiResponse>;
  /**
   * The client format's in-stream error event, for a stream that breaks after it started;
   * undefined for a body that has none (binary), which is then cut.
   */
  renderStreamError(error: GatewayError): string | undefined;
}

export interface AttemptHooks {
  /** Reports a failure after the first byte (the stream is then ended with an error event). */
  streamFailed(error: unknown): void;
}

/**
 * The one call pipeline for every operation: allowlist and rate limit, quota reserved
 * before the call, candidates picked (skipping cool-downs and open circuits), attempts
 * with failover before the first byte, and the outcome recorded for routing and the log.
 */
/** Never a header, a URL part or a log line: a model name with CR, LF or NUL is refused outright. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

export async function runCall(context: GatewayContext, plan: CallPlan): Promise<ApiResponse> {
  const { log, token, runtime, format } = context;
  if (plan.model.length === 0 || plan.model.length > 256 || CONTROL_CHARACTERS.test(plan.model)) {
    throw new GatewayError("invalid_request", "The model name must be 1 to 256 characters without control characters.", { code: "invalid_model", param: "model" });
  }
  log.model = plan.model;
  log.stream = plan.stream;

  if (token.models && !token.models.has(plan.model)) {
    throw new GatewayError("permission", `This API key is not allowed to use the model '${plan.model}'.`, {
      code: "model_not_allowed",
      param: "model",
    });
  }
  const serves = (channel: Channel) => {
    const provider = providers[channel.type];
    return channelServes(channel, plan.operation) && (plan.supports?.(provider, channel) ?? providerServes(provider, plan.operation, format.name));
  };
  // Another process just changed the channels: route on the change, not on what it replaced.
  if (runtime.channels.settling) await runtime.channels.settling;
  const pick = () =>
    runtime.channels.candidates(plan.model).filter((channel) => serves(channel) && (plan.pinnedChannelId === undefined || channel.id === plan.pinnedChannelId));
  let candidates = pick();
  if (candidates.length === 0) {
    // A channel just added through another process may not have reached this one's cache
    // yet: one fresh load before saying the model does not exist (if it fails, the answer stands).
    await runtime.channels.reload().catch(() => undefined);
    candidates = pick();
  }
  if (candidates.length === 0) {
    throw new GatewayError("not_found", `The model '${plan.model}' does not exist or you do not have access to it.`, {
      code: "model_not_found",
      param: "model",
    });
  }
  await runtime.limits.consumeRequest(token.subject, token);
  const tokens = Math.ceil(plan.estimate.inputTokens + plan.estimate.outputTokens);
  const usd = Math.max(
    ...candidates.map((channel) => {
      const price = priceFor(channel.prices, plan.model);
      return price ? (plan.estimate.inputTokens * price.input + plan.estimate.outputTokens * price.output) / 1_000_000 : 0;
    }),
  );
  const reservation = await runtime.limits.reserve(token.subject, token, { tokens, usd });
  log.onSettle = (spend) => {
    runtime.limits.settle(reservation, spend).catch((error) => logger.error({ err: error }, "quota settlement failed"));
  };
  return attemptAll(context, plan, candidates);
}

async function attemptAll(context: GatewayContext, plan: CallPlan, candidates: Channel[]): Promise<ApiResponse> {
  const { log, runtime, request } = context;
  const states = runtime.channelStates;
  let lastError: unknown;
  let attempts = 0;
  for (const channel of candidates) {
    if (attempts >= env.ROUTING_MAX_ATTEMPTS) break;
    if (!states.tryAcquire(channel.id, plan.model)) continue;
    if (attempts > 0 && env.ROUTING_BACKOFF_MS > 0) {
      // Full jitter, doubling per attempt: spreads retries from many clients apart.
      const ceiling = Math.min(env.ROUTING_BACKOFF_MS * 2 ** (attempts - 1), 2000);
      try {
        await sleep(Math.random() * ceiling, undefined, { signal: request.signal });
      } catch (error) {
        states.release(channel.id, plan.model);
        throw error;
      }
    }
    attempts += 1;
    const started = performance.now();
    const record: AttemptRecord = { channelId: channel.id, channelName: channel.name, model: plan.model, status: 0, error: null, latencyMs: 0 };
    log.attempts.push(record);
    const call = callContextFor(context, channel, plan.model, plan.stream);
    const span = tracer.startSpan("upstream attempt", {
      attributes: { "gateway.request_id": log.id, "gateway.channel": channel.name, "gateway.model": plan.model, "gateway.attempt": attempts },
    });
    const streamFailed = (error: unknown) => {
      // A client that left is logged as such by the request log, not as an upstream failure.
      if (request.signal.aborted) return;
      const failure = toGatewayError(error);
      record.error = `after the response started: ${failure.message}`;
      log.meter.recordError(failure);
      if (classifyAttemptError(failure).channelFault) {
        states.recordFailure(channel.id, plan.model, failure.message);
        runtime.channelHealth.record(channel.id, { error: failure.message, latencyMs: elapsed(started) });
      }
    };
    try {
      let response = await plan.attempt(channel, call, { streamFailed });
      if (isAsyncIterable(response.body)) {
        const primed = await primeStream(response.body);
        response = {
          ...response,
          body: guardStream(primed, (error) => {
            streamFailed(error);
            return plan.renderStreamError(toGatewayError(error));
          }),
        };
      }
      record.status = response.status;
      record.latencyMs = elapsed(started);
      span.setAttribute("http.response.status_code", response.status);
      endSpan(span);
      states.recordSuccess(channel.id, plan.model);
      runtime.channelHealth.record(channel.id, { error: null, latencyMs: record.latencyMs });
      return response;
    } catch (error) {
      record.latencyMs = elapsed(started);
      record.status = isGatewayError(error) ? (error.upstreamStatus ?? 0) : 0;
      record.error = error instanceof Error ? error.message : String(error);
      if (isGatewayError(error) && isMissingPath(error, call.upstreamModel)) {
        record.error = missingPathReason(channel.type, channel.baseUrl, record.error);
        error = misconfiguredChannel(error);
      }
      span.setAttribute("http.response.status_code", record.status);
      endSpan(span, error);
      if (request.signal.aborted) {
        states.release(channel.id, plan.model);
        throw error;
      }
      const outcome = classifyAttemptError(error);
      if (outcome.channelFault) {
        states.recordFailure(channel.id, plan.model, record.error);
        runtime.channelHealth.record(channel.id, { error: record.error, latencyMs: record.latencyMs });
      } else {
        states.release(channel.id, plan.model);
      }
      if (outcome.coolDownSeconds) states.coolDown(channel.id, plan.model, Date.now() + outcome.coolDownSeconds * 1000, record.error);
      if (outcome.disableReason) recordAutoDisable(runtime, channel.id, outcome.disableReason);
      lastError = error;
      const next = outcome.failOver && attempts < env.ROUTING_MAX_ATTEMPTS && candidates.indexOf(channel) < candidates.length - 1;
      logger.warn(
        { channel: channel.name, model: plan.model, status: record.status || undefined, requestId: log.id },
        `upstream attempt failed: ${record.error}${next ? "; trying the next channel" : ""}`,
      );
      logger.debug({ channelId: channel.id, requestId: log.id, err: error }, "upstream attempt failure in full");
      if (!outcome.failOver) throw error;
    }
  }
  if (lastError !== undefined) throw finalError(lastError);
  // Every candidate is cooling down or has an open circuit.
  const until = runtime.channelStates.nextAvailable(candidates.map((channel) => channel.id), plan.model);
  throw new GatewayError("overloaded", `Every channel serving '${plan.model}' is temporarily unavailable; try again shortly.`, {
    code: "no_channel_available",
    retryAfterSeconds: until ? Math.max(1, Math.ceil((until - Date.now()) / 1000)) : 1,
  });
}

/** A path 404 is the gateway's configuration at fault: the caller gets a 502 that says so, never "not found". */
function misconfiguredChannel(error: GatewayError): GatewayError {
  return new GatewayError("bad_gateway", "The upstream serving this model answered 404 for the endpoint itself: the channel's base URL is misconfigured. An administrator has to check it.", {
    code: "upstream_misconfigured",
    upstreamStatus: error.upstreamStatus,
    cause: error,
  });
}

/** The error the client gets when no candidate is left: never the channel's 401 as theirs. */
function finalError(error: unknown): unknown {
  if (!isCredentialRejection(error)) return error;
  return new GatewayError("bad_gateway", "The upstream provider refused the gateway's credentials for this model. An administrator has to check the channel.", {
    code: "upstream_auth_failed",
    cause: error,
  });
}

/** The provider's view of one attempt on `channel`; the log records which channel it was. */
export function callContextFor(context: GatewayContext, channel: Channel, model: string, stream: boolean): CallContext {
  const upstreamModel = channel.modelMap[model] ?? model;
  context.log.channelId = channel.id;
  context.log.upstreamModel = upstreamModel;
  context.log.price = priceFor(channel.prices, model) ?? priceFor(channel.prices, upstreamModel);
  return {
    channel,
    upstreamModel,
    http: context.upstream,
    signal: context.request.signal,
    timeouts: upstreamTimeouts(channel, stream),
    meter: context.log.meter,
    warnings: context.log.warnings,
  };
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
