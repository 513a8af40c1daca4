import { GatewayError } from "@/lib/canonical/gateway-error";
import { memberFor, type OperationCalls } from "@/lib/providers/provider";
import type { Operation } from "@/lib/providers/operation";
import { channelServes, type Channel } from "@/lib/routing/channel";
import { unknownModelMessage } from "@/lib/routing/nearest-names";
import { sessionHash } from "@/lib/routing/session-affinity";
import { CallCharge } from "@/lib/limits/call-charge";
import { checkedEndUser, endUserOf, loggedEndUser, payersWithEndUser } from "@/lib/teams/end-users";
import { worstCase } from "./worst-case";
import { callWithFallbacks } from "./call-with-fallbacks";
import type { CallPlan, CallScope } from "./call-services";

export type { CallPlan } from "./call-services";

/** A quick upper bound of a prompt's tokens for reservations: ~3 characters a token is more than any tokenizer gives for text. */
export function estimatePromptTokens(text: string): number {
  return estimateTokensOfLength(text.length);
}

/** The same bound from a length in characters, or in bytes of JSON (more than its characters). */
export function estimateTokensOfLength(length: number): number {
  return Math.ceil(length / 3) + 16;
}

/** The prober checks an auto-disabled channel about once a minute. */
const OUT_OF_ROTATION_RETRY_SECONDS = 60;

/** Never a header, a URL part or a log line: a model name with CR, LF or NUL is refused outright. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * The one call core for every operation and transport: the model and the token's
 * allowlist checked, candidates picked (channels whose provider has a member that serves
 * this call), rate limit and quota reserved before the call, then attempts with failover
 * before the first byte (attempt-loop.ts), and the model's fallbacks when it cannot serve
 * (call-with-fallbacks.ts).
 */
export async function runCall<O extends Operation>(scope: CallScope, plan: CallPlan<O>): Promise<OperationCalls[O][1]> {
  const { call, token, runtime } = scope;
  if (plan.model.length === 0 || plan.model.length > 256 || CONTROL_CHARACTERS.test(plan.model)) {
    throw new GatewayError("invalid_request", "The model name must be 1 to 256 characters without control characters.", { code: "invalid_model", param: "model" });
  }
  call.model = plan.model;
  call.stream = plan.stream;
  // The person behind the app (body user, safety_identifier, metadata.user_id, x-end-user-id):
  // on the log row and in the end users' rollups, whatever becomes of the call.
  const named = endUserOf(plan.call, scope.request.headers);
  call.endUser = named === undefined ? null : loggedEndUser(named);

  // A name no channel serves is a 404 that helps (the nearest allowed names), allowed or not.
  const allowed = !token.models || token.models.has(plan.model);
  const notAllowed = () => new GatewayError("permission", `This API key is not allowed to use the model '${plan.model}'.`, { code: "model_not_allowed", param: "model" });
  if (!allowed && runtime.channels.models().has(plan.model)) throw notAllowed();
  const serves = (channel: Channel) =>
    channelServes(channel, plan.operation) &&
    (plan.pinnedChannelId === undefined || channel.id === plan.pinnedChannelId) &&
    memberFor(runtime.providers[channel.type], plan.operation, plan.call, channel) !== undefined;
  // Another process just changed the channels: route on the change, not on what it replaced.
  if (runtime.channels.settling) await runtime.channels.settling;
  if (runtime.models.settling) await runtime.models.settling;
  // Each model's channels in the order of its strategy (a model without a record: weighted).
  const candidatesFor = (model: string) => runtime.channels.candidates(model, { strategy: runtime.models.find(model)?.strategy, signals: runtime.routingStats }).filter(serves);
  let candidates = candidatesFor(plan.model);
  if (candidates.length === 0) {
    // A channel just added through another process may not have reached this one's cache
    // yet: one fresh load before saying the model does not exist (if it fails, the answer stands).
    await runtime.channels.reload().catch(() => undefined);
    candidates = candidatesFor(plan.model);
  }
  if (candidates.length === 0 && allowed && runtime.channels.outOfRotation(plan.model)) {
    throw new GatewayError(
      "overloaded",
      `The model '${plan.model}' cannot be served right now: every channel serving it is out of rotation until its upstream answers again. Try again shortly.`,
      {
        code: "model_unavailable",
        retryAfterSeconds: OUT_OF_ROTATION_RETRY_SECONDS,
      },
    );
  }
  if (candidates.length === 0) {
    const usable = [...runtime.channels.models().keys()].filter((name) => !token.models || token.models.has(name));
    throw new GatewayError("not_found", unknownModelMessage(plan.model, usable), {
      code: "model_not_found",
      param: "model",
    });
  }
  if (!allowed) throw notAllowed();
  // The end user's windows are reserved beside the token's, the team's and the member's.
  const endUser = named !== undefined && token.endUserWindows?.length ? checkedEndUser(named) : undefined;
  const ledger = runtime.endUsers;
  const charge = new CallCharge(
    runtime.limits,
    payersWithEndUser(token, endUser),
    endUser && ledger && !token.synthetic ? (spend) => ledger.record(token.id, endUser, spend) : undefined,
  );
  await charge.admit();
  await charge.reserve(plan.model, worstCase(plan.estimate, candidates, plan.model));
  // Settled when the call finishes (call-state.ts), with what it really spent.
  call.charge = charge;
  // A session goes back to the channel and key of its last successful turn (session-affinity.ts).
  if (plan.session) {
    scope.sessionTurn = await runtime.affinity.begin(plan.session, `${token.subject.kind}:${token.subject.id}`);
    call.sessionHash = scope.sessionTurn?.hash ?? sessionHash(plan.session);
    if (scope.sessionTurn) candidates = scope.sessionTurn.order(candidates);
  }
  return callWithFallbacks(scope, plan, candidates, candidatesFor);
}
