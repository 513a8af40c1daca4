import type { TokenRecord } from "@/lib/auth/token-record";
import { GatewayError } from "@/lib/canonical/gateway-error";

/** Refuses a token whose used tokens (written plus not yet written) reached its quota. */
export function checkQuota(token: TokenRecord, pendingTokens: number): void {
  if (token.quotaTokens === null) return;
  if (token.usedTokens + pendingTokens >= token.quotaTokens) {
    throw new GatewayError("quota_exceeded", "You exceeded your current quota: this key has used all of its tokens.", {
      code: "insufficient_quota",
    });
  }
}

/** Refuses a model outside the token's allowlist. */
export function checkModelAllowed(token: TokenRecord, model: string): void {
  if (token.models && !token.models.has(model)) {
    throw new GatewayError("permission", `This API key is not allowed to use the model '${model}'.`, {
      code: "model_not_allowed",
      param: "model",
    });
  }
}
