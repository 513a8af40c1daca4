import { GatewayError } from "@/lib/canonical/gateway-error";
import type { TokenCache } from "./token-cache";
import type { TokenRecord } from "./token-record";

const invalidKey = (message: string) => new GatewayError("authentication", message, { code: "invalid_api_key" });

/**
 * Resolves a presented key to an active token, or throws a 401. `slip` names a recognised
 * mistake (a key sent the wrong way) in place of the generic message; asked only on failure.
 */
export async function authenticateToken(key: string | null, tokens: TokenCache, now = Date.now(), slip?: () => string | undefined): Promise<TokenRecord> {
  if (!key) {
    throw invalidKey(
      slip?.() ?? "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    );
  }
  const record = await tokens.get(key);
  if (!record) throw invalidKey(slip?.() ?? "Incorrect API key provided.");
  checkTokenActive(record, now);
  return record;
}

/** Throws a 401 for a disabled or expired token. */
export function checkTokenActive(record: TokenRecord, now = Date.now()): void {
  if (!record.enabled) throw invalidKey("This API key has been disabled.");
  if (record.expiresAt !== null && record.expiresAt <= now) throw invalidKey("This API key has expired.");
}
