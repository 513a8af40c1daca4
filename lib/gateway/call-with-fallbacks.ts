import { chatForModel } from "@/lib/canonical/deferred-chat";
import { catalogueContextWindow } from "@/lib/catalogue/model-catalogue";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import { logger } from "@/lib/logger";
import type { ModelRoute } from "@/lib/models/model-route";
import type { Operation } from "@/lib/providers/operation";
import type { ChatRequest } from "@/lib/canonical/request";
import type { ModelCall, OperationCalls } from "@/lib/providers/provider";
import type { Channel } from "@/lib/routing/channel";
import { attemptAll, candidatesExhausted } from "./attempt-loop";
import { worstCase } from "./worst-case";
import type { CallPlan, CallScope } from "./call-services";

/** Names the model the caller asked for on an answer a fallback model served. */
export const FALLBACK_FROM_HEADER = "x-gateway-fallback-from";

/** The candidates serving a model for this call, in the order its strategy gives. */
export type CandidatesFor = (model: string) => Channel[];

/**
 * Attempts the requested model's candidates, then, when none could serve, the model's
 * fallbacks in order: each within what is left of the request's attempt budget (attempts are
 * counted on the log row) and only while the caller waits. A fallback is tried when every
 * candidate failed before its first byte the way that fails over, or when the upstream refused
 * the prompt as too long (then only a fallback with a larger known context window, or an
 * unknown one). Fallbacks of fallbacks are not followed: the requested model's list is the plan.
 */
export async function callWithFallbacks<O extends Operation>(
  scope: CallScope,
  plan: CallPlan<O>,
  candidates: Channel[],
  candidatesFor: CandidatesFor,
): Promise<OperationCalls[O][1]> {
  const { log, call, token, runtime } = scope;
  const route = runtime.models.find(plan.model);
  if (!route || route.fallbacks.length === 0) return attemptAll(scope, plan, candidates);
  let failure: unknown;
  try {
    return await attemptAll(scope, plan, candidates);
  } catch (error) {
    if (!fallsBack(error)) throw error;
    failure = error;
  }
  for (const fallback of route.fallbacks) {
    if (call.attempts.length >= runtime.routing.maxAttempts || scope.request.signal.aborted) break;
    const skip = skipReason(fallback, route, failure, runtime.models.find(fallback), token.models);
    const fallbackCandidates = skip ? [] : candidatesFor(fallback);
    if (skip || fallbackCandidates.length === 0) {
      call.warnings.push(`fallback ${fallback} skipped: ${skip ?? "no channel serves it for this request"}`);
      continue;
    }
    try {
      // The fallback's own price and limit windows, checked now that it is the model to serve.
      await call.charge?.moveTo(fallback, worstCase(plan.estimate, fallbackCandidates, fallback));
    } catch (error) {
      if (!isGatewayError(error) || (error.kind !== "quota_exceeded" && error.kind !== "rate_limit")) throw error;
      call.warnings.push(`fallback ${fallback} skipped: ${error.message}`);
      failure = error;
      continue;
    }
    logger.warn({ requestId: log.id, model: plan.model, fallback }, `model ${plan.model} could not serve; trying its fallback ${fallback}`);
    try {
      const answer = await attemptAll(scope, { ...plan, model: fallback, call: retargeted(plan.call, fallback) }, fallbackCandidates);
      call.servedModel = fallback;
      return withFallbackHeader(answer, plan.model);
    } catch (error) {
      if (!fallsBack(error)) throw error;
      failure = error;
    }
  }
  throw failure;
}

/** Whether a failed call may move on to a fallback model. */
function fallsBack(error: unknown): boolean {
  return candidatesExhausted(error) || (isGatewayError(error) && error.contextExceeded);
}

/** Why a fallback is not tried, or undefined when it is. */
function skipReason(
  fallback: string,
  requested: ModelRoute,
  failure: unknown,
  record: ModelRoute | undefined,
  allowed: ReadonlySet<string> | null | undefined,
): string | undefined {
  if (fallback === requested.name) return "it is the requested model";
  if (allowed && !allowed.has(fallback)) return "this API key may not use it";
  const tooLong = isGatewayError(failure) && failure.contextExceeded;
  // A record's window wins; else the catalogue's, where it knows the model.
  const requestedWindow = requested.contextWindow ?? catalogueContextWindow(requested.name);
  const fallbackWindow = record?.contextWindow ?? catalogueContextWindow(fallback);
  if (tooLong && requestedWindow && fallbackWindow && fallbackWindow <= requestedWindow) {
    return `the prompt is too long for ${requested.name} and its context window is no larger`;
  }
  return undefined;
}

/**
 * The operation's input for another model (every input names its model; a canonical chat's
 * answers are named after its own). Bodies relayed as sent get their `model` rewritten per
 * channel by the relays themselves (to the attempt's upstream model).
 */
function retargeted<C extends ModelCall & { chat?: ChatRequest }>(call: C, model: string): C {
  return call.chat ? { ...call, model, chat: chatForModel(call.chat, model) } : { ...call, model };
}

/** An HTTP answer with the header added (headers objects may be shared constants: copied, never changed). */
function withFallbackHeader<A>(answer: A, requested: string): A {
  const headers = (answer as { headers?: unknown }).headers;
  if (typeof headers !== "object" || headers === null) return answer;
  return { ...answer, headers: { ...(headers as Record<string, string>), [FALLBACK_FROM_HEADER]: requested } };
}
