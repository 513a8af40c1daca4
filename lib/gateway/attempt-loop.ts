import { setTimeout as sleep } from "node:timers/promises";
import { abortSignalOf } from "@/lib/canonical/abort-source";
import { isAsyncIterable, type ApiResponse } from "@/lib/canonical/api-types";
import { GatewayError, isGatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import { guardStream, primeStream } from "@/lib/canonical/prime-stream";
import { isMissingPath, missingPathReason } from "@/lib/providers/base-url";
import { channelPrice } from "@/lib/catalogue/channel-price";
import { logger } from "@/lib/logger";
import { endSpan, tracer } from "@/lib/observability/tracing";
import type { Operation } from "@/lib/providers/operation";
import { memberFor, type AttemptContext, type OperationCalls } from "@/lib/providers/provider";
import type { Channel } from "@/lib/routing/channel";
import type { AttemptRecord } from "@/lib/usage/request-log-entry";
import { forCaller } from "./caller-error";
import { classifyAttemptError, isCredentialRejection, type AttemptOutcome } from "./attempt-outcome";
import type { CallPlan, CallScope } from "./call-services";
import { upstreamTimeouts } from "./upstream-timeouts";

/**
 * Tries the candidates in order until one answers: an attempt that fails before its
 * first byte reached the client fails over (when its failure says so), with jittered
 * backoff between attempts. Every outcome feeds the channel's circuit, cool-down and
 * health, and the log row's list of attempts. A WebSocket upgrade is an attempt like any
 * other: its first byte is the upstream's 101.
 */
export async function attemptAll<O extends Operation>(scope: CallScope, plan: CallPlan<O>, candidates: Channel[], waited = false): Promise<OperationCalls[O][1]> {
  const { log, call, runtime, request } = scope;
  const states = runtime.channelStates;
  const { maxAttempts, backoffMs } = runtime.routing;
  let lastError: unknown;
  // The budget is the request's: attempts a fallback model's channels make count against it too.
  let attempts = call.attempts.length;
  for (let index = 0; index < candidates.length; index++) {
    const channel = candidates[index]!;
    if (attempts >= maxAttempts) break;
    if (!states.tryAcquire(channel.id, plan.model)) continue;
    // One key of the channel's pool: the session's pinned one while it is healthy.
    const key = runtime.keyPools.pick(channel, scope.sessionTurn?.preferredKey(channel.id));
    if (!key) {
      states.release(channel.id, plan.model);
      continue;
    }
    if (attempts > 0 && backoffMs > 0) {
      // Full jitter, doubling per attempt: spreads retries from many clients apart.
      const ceiling = Math.min(backoffMs * 2 ** (attempts - 1), 2000);
      try {
        await sleep(Math.random() * ceiling, undefined, { signal: abortSignalOf(request.signal) });
      } catch (error) {
        states.release(channel.id, plan.model);
        throw error;
      }
    }
    attempts += 1;
    const started = performance.now();
    const record: AttemptRecord = { channelId: channel.id, channelName: channel.name, model: plan.model, status: 0, error: null, latencyMs: 0 };
    if (key.pooled) record.keyHint = key.hint;
    call.attempts.push(record);
    const context = callContextFor(scope, key.channel, plan.model, plan.stream);
    const landed = runtime.routingStats.begin(channel.id);
    const span = tracer.startSpan("upstream attempt", {
      attributes: { "gateway.request_id": log.id, "gateway.channel": channel.name, "gateway.model": plan.model, "gateway.attempt": attempts },
    });
    const streamFailed = (error: unknown) => {
      // A client that left is logged as such by the request log, not as an upstream failure.
      if (request.signal.aborted) return;
      const failure = toGatewayError(error);
      record.error = `after the response started: ${failure.message}`;
      call.meter.recordError(failure);
      if (classifyAttemptError(failure).channelFault) {
        states.recordFailure(channel.id, plan.model, failure.message);
        runtime.channelHealth.record(channel.id, { error: failure.message, latencyMs: elapsed(started) });
      }
    };
    try {
      const member = memberFor(runtime.providers[channel.type], plan.operation, plan.call, channel)!;
      let answer = await member.attempt(plan.call, context, { streamFailed });
      if (isStreamedResponse(answer)) {
        const primed = await primeStream(answer.body);
        answer = {
          ...answer,
          body: guardStream(primed, (error) => {
            streamFailed(error);
            return plan.renderStreamError(toGatewayError(forCaller(error, log.id)));
          }),
        } as typeof answer;
      }
      record.status = answerStatus(answer);
      record.latencyMs = elapsed(started);
      span.setAttribute("http.response.status_code", record.status);
      endSpan(span);
      states.recordSuccess(channel.id, plan.model);
      runtime.channelHealth.record(channel.id, { error: null, latencyMs: record.latencyMs });
      runtime.routingStats.recordLatency(channel.id, plan.model, record.latencyMs);
      // In flight until the answer has reached the client (a stream's end).
      call.onFinish(landed);
      scope.sessionTurn?.served(channel.id, key.fingerprint);
      return answer;
    } catch (error) {
      landed();
      record.latencyMs = elapsed(started);
      record.status = isGatewayError(error) ? (error.upstreamStatus ?? 0) : 0;
      record.error = error instanceof Error ? error.message : String(error);
      if (isGatewayError(error) && isMissingPath(error, context.upstreamModel)) {
        record.error = missingPathReason(channel.type, channel.baseUrl, record.error);
        // biome-ignore lint/suspicious/noCatchAssign: from here on the failure is the misconfiguration the caller is told of
        error = misconfiguredChannel(error);
      }
      span.setAttribute("http.response.status_code", record.status);
      endSpan(span, error);
      if (request.signal.aborted) {
        states.release(channel.id, plan.model);
        throw error;
      }
      const outcome = classifyAttemptError(error, context.upstreamModel);
      if (outcome.modelRestSeconds !== null) {
        // The upstream refused this model, not the key: the channel rests for it alone, everywhere.
        states.release(channel.id, plan.model);
        states.coolDown(channel.id, plan.model, runtime.now() + outcome.modelRestSeconds * 1000, record.error, "unavailable");
        runtime.channelHealth.record(channel.id, { error: record.error, latencyMs: record.latencyMs });
        lastError = modelUnavailable(plan.model, outcome.modelRestSeconds, error);
        logger.warn(
          { channel: channel.name, model: plan.model, status: record.status, requestId: log.id },
          `upstream refused the model: ${record.error}; resting the channel for it`,
        );
        continue;
      }
      const keyOutcome = keyFailure(error, outcome);
      if (key.pooled && runtime.keyPools.keyFailed(channel, key, keyOutcome)) {
        // Refused or rate-limited key alone: the channel is fine, and tries again with another key.
        states.release(channel.id, plan.model);
        lastError = error;
        logger.warn({ channel: channel.name, key: key.hint, status: record.status || undefined, requestId: log.id }, `upstream key failed: ${record.error}; trying another key`);
        index -= 1;
        continue;
      }
      if (key.pooled && keyOutcome.rateLimitSeconds !== null) {
        // The pool's last key just cooled: the channel waits for the first key back, as one key's channel waits out its Retry-After.
        const back = runtime.keyPools.nextKeyBack(channel);
        if (back !== null) states.coolDown(channel.id, plan.model, back, record.error);
      }
      if (outcome.channelFault) {
        states.recordFailure(channel.id, plan.model, record.error);
        runtime.channelHealth.record(channel.id, { error: record.error, latencyMs: record.latencyMs });
      } else {
        states.release(channel.id, plan.model);
      }
      if (outcome.coolDownSeconds && !key.pooled) states.coolDown(channel.id, plan.model, runtime.now() + outcome.coolDownSeconds * 1000, record.error);
      if (outcome.disableReason) runtime.autoDisable(channel.id, outcome.disableReason);
      lastError = error;
      const next = outcome.failOver && attempts < maxAttempts && candidates.indexOf(channel) < candidates.length - 1;
      logger.warn(
        { channel: channel.name, model: plan.model, status: record.status || undefined, requestId: log.id },
        `upstream attempt failed: ${record.error}${next ? "; trying the next channel" : ""}`,
      );
      logger.debug({ channelId: channel.id, requestId: log.id, err: error }, "upstream attempt failure in full");
      if (!outcome.failOver) throw forCaller(error, log.id);
    }
  }
  if (lastError !== undefined) throw exhausted(forCaller(finalError(lastError), log.id));
  // Every candidate is cooling down or has an open circuit.
  const { until, rateLimited, modelRefused } = states.skipped(
    candidates.map((channel) => channel.id),
    plan.model,
  );
  const waitMs = until === null ? 0 : Math.max(0, until - runtime.now());
  if (rateLimited && !waited && until !== null && waitMs <= runtime.routing.maxWaitMs) {
    // The cool-down ends within what the call may wait (ROUTING_MAX_WAIT_MS): wait it out once.
    await sleep(waitMs, undefined, { signal: abortSignalOf(request.signal) });
    return attemptAll(scope, plan, candidates, true);
  }
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  if (rateLimited) {
    throw exhausted(
      new GatewayError("rate_limit", `Every channel serving '${plan.model}' is rate limited by its upstream; try again in ${retryAfterSeconds} s.`, {
        code: "rate_limit_exceeded",
        retryAfterSeconds,
      }),
    );
  }
  if (modelRefused) throw exhausted(modelUnavailable(plan.model, retryAfterSeconds, undefined));
  throw exhausted(
    new GatewayError("overloaded", `Every channel serving '${plan.model}' is temporarily unavailable; try again shortly.`, {
      code: "no_channel_available",
      retryAfterSeconds,
    }),
  );
}

const exhaustedErrors = new WeakSet<object>();

/** Marks the error of a call whose every candidate failed (or was skipped) in a way that fails over. */
function exhausted(error: unknown): unknown {
  if (typeof error === "object" && error !== null) exhaustedErrors.add(error);
  return error;
}

/** Whether every candidate failed before its first byte the way that fails over: a fallback model may serve. */
export function candidatesExhausted(error: unknown): boolean {
  return typeof error === "object" && error !== null && exhaustedErrors.has(error);
}

/** What a failed attempt means for its key alone: refused (disable it) or rate limited (rest it). */
function keyFailure(error: unknown, outcome: AttemptOutcome): { disableReason: string | null; rateLimitSeconds: number | null } {
  const rateLimited = isGatewayError(error) && error.upstreamStatus === 429;
  return { disableReason: outcome.disableReason, rateLimitSeconds: rateLimited ? (outcome.coolDownSeconds ?? 0) : null };
}

function isStreamedResponse(answer: unknown): answer is ApiResponse & { body: AsyncIterable<string | Uint8Array> } {
  return typeof answer === "object" && answer !== null && "body" in answer && isAsyncIterable((answer as ApiResponse).body);
}

/** An HTTP answer's status; a socket that opened is a 101. */
function answerStatus(answer: unknown): number {
  const status = (answer as { status?: unknown }).status;
  return typeof status === "number" ? status : 101;
}

/** A path 404 is the gateway's configuration at fault: the caller gets a 502 that says so, never "not found". */
function misconfiguredChannel(error: GatewayError): GatewayError {
  return new GatewayError(
    "bad_gateway",
    "The upstream serving this model answered 404 for the endpoint itself: the channel's base URL is misconfigured. An administrator has to check it.",
    {
      code: "upstream_misconfigured",
      upstreamStatus: error.upstreamStatus,
      cause: error,
    },
  );
}

/** A model its upstream refused: the caller may come back later (503), and is never told it does not exist. */
function modelUnavailable(model: string, retryAfterSeconds: number, cause: unknown): GatewayError {
  return new GatewayError(
    "overloaded",
    `The model '${model}' cannot be served right now: its upstream refused access to it. Try again later or use another model; an administrator can see the reason in the request log.`,
    {
      code: "model_unavailable",
      retryAfterSeconds,
      cause,
    },
  );
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
function callContextFor(scope: CallScope, channel: Channel, model: string, stream: boolean): AttemptContext {
  const upstreamModel = channel.modelMap[model] ?? model;
  scope.call.channelId = channel.id;
  scope.call.upstreamModel = upstreamModel;
  scope.call.price = channelPrice(channel, model)?.price;
  return {
    channel,
    upstreamModel,
    transport: scope.runtime.transportFor(channel),
    http: scope.upstream,
    signal: scope.request.signal,
    timeouts: upstreamTimeouts(channel, stream),
    meter: scope.call.meter,
    warnings: scope.call.warnings,
    hops: scope.hops,
    promptCacheKey: scope.call.sessionHash ?? undefined,
  };
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
