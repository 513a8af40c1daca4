import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { classifyAttemptError, isCredentialRejection, MODEL_REST_SECONDS } from "@/lib/gateway/attempt-outcome";
import { isMissingPath } from "@/lib/providers/base-url";

const upstream = (status: number, options: { code?: string; retryAfterSeconds?: number; message?: string } = {}) =>
  new GatewayError("upstream_error", options.message ?? `upstream said ${status}`, {
    status,
    upstreamStatus: status,
    code: options.code,
    retryAfterSeconds: options.retryAfterSeconds,
  });

describe("what one failed attempt means for routing", () => {
  // [what failed, fail over, channel's fault, disables, cool-down seconds]
  const table: [string, unknown, boolean, boolean, boolean, number | null][] = [
    ["a 400 (the caller's request)", upstream(400), false, false, false, null],
    ["a 422", upstream(422), false, false, false, null],
    ["a 401 (the gateway's key)", upstream(401), true, true, true, null],
    ["a 402 (no credit)", upstream(402), true, true, true, null],
    ["a 403", upstream(403), true, true, true, null],
    ["a 404 (wrong base URL or model map)", upstream(404), true, true, false, null],
    ["a 408", upstream(408), true, true, false, null],
    ["a 429 without Retry-After", upstream(429), true, true, false, null],
    ["a 429 with Retry-After: 7", upstream(429, { retryAfterSeconds: 7 }), true, true, false, 7],
    ["a 429 asking for an hour (capped at 10 minutes)", upstream(429, { retryAfterSeconds: 3600 }), true, true, false, 600],
    ["a 429 that is a spent balance", upstream(429, { code: "insufficient_quota" }), true, true, false, null],
    ["a 400 that is a spent balance", upstream(400, { code: "insufficient_quota" }), true, true, true, null],
    ["a 500", upstream(500), true, true, false, null],
    ["a 503", upstream(503), true, true, false, null],
    ["a refused connection", new GatewayError("bad_gateway", "unreachable", { code: "upstream_unreachable" }), true, true, false, null],
    ["a timeout", new GatewayError("timeout", "slow", { code: "upstream_timeout" }), true, true, false, null],
    ["the gateway's own 400", new GatewayError("invalid_request", "bad"), false, false, false, null],
    ["a loop the upstream refused (508)", upstream(508), true, true, false, null],
    ["anything that is no GatewayError (a bug, an abort)", new Error("boom"), false, false, false, null],
  ];
  for (const [what, error, failOver, channelFault, disables, coolDown] of table) {
    test(what, () => {
      const outcome = classifyAttemptError(error);
      assert.equal(outcome.failOver, failOver, "fail over");
      assert.equal(outcome.channelFault, channelFault, "channel's fault");
      assert.equal(outcome.disableReason !== null, disables, "disables the channel");
      assert.equal(outcome.coolDownSeconds, coolDown, "cool-down");
    });
  }

  test("a 403 or 404 naming the model rests the model, never the key or the channel", () => {
    for (const refusal of [
      upstream(403, { message: "Project `proj_1` does not have access to model `gpt-x`", code: "model_not_found" }),
      upstream(403, { message: "Permission denied on resource project p for model models/GPT-X." }),
      upstream(404, { message: "The model `gpt-x` does not exist or you do not have access to it." }),
    ]) {
      const outcome = classifyAttemptError(refusal, "gpt-x");
      assert.equal(outcome.failOver, true);
      assert.equal(outcome.channelFault, false, "the channel's circuit is not charged");
      assert.equal(outcome.disableReason, null, "no key or channel is disabled");
      assert.equal(outcome.modelRestSeconds, MODEL_REST_SECONDS);
      assert.equal(isCredentialRejection(refusal, "gpt-x"), false);
    }
    // A 403 about the key names no model: still the key's.
    assert.notEqual(classifyAttemptError(upstream(403, { message: "Your API key is not allowed" }), "gpt-x").disableReason, null);
  });

  test("a credential rejection is told apart from a rate limit", () => {
    assert.equal(isCredentialRejection(upstream(401)), true);
    assert.equal(isCredentialRejection(upstream(429, { code: "insufficient_quota" })), false);
    assert.equal(isCredentialRejection(new GatewayError("bad_gateway", "x")), false);
  });

  test("a 404 naming the model is the model's; one that does not is the path's", () => {
    assert.equal(isMissingPath(upstream(404, { message: "The model 'gpt-x' does not exist" }), "gpt-x"), false);
    assert.equal(isMissingPath(upstream(404, { message: "Not Found" }), "gpt-x"), true);
  });
});
