import { createHash } from "node:crypto";
import type { TokenRecord } from "@/lib/auth/token-record";
import type { ChatRequest } from "@/lib/canonical/request";

/**
 * Fields that never change the answer: who asks (`user`, `metadata`, `safety_identifier`)
 * and how it is delivered (`stream`, `stream_options`). Everything else counts.
 */
const DELIVERY_FIELDS = new Set(["user", "metadata", "safety_identifier", "stream", "stream_options"]);
const CANONICAL_DELIVERY_FIELDS = new Set<keyof ChatRequest>(["user", "stream"]);

/** Whose answers a request may see: the token's user, or the token itself when it has none (never across users). */
export function cacheOwner(token: Pick<TokenRecord, "id" | "userId">): string {
  return token.userId ? `user:${token.userId}` : `token:${token.id}`;
}

/**
 * The exact-match key: the owner, the client format, the requested model and every field of
 * the client's body that changes the answer (the canonical request when there is no body),
 * with object keys in a fixed order so the same request always gives the same key.
 */
export function responseCacheKey(owner: string, format: string, chat: ChatRequest, body: Record<string, unknown> | undefined): string {
  const fields = body
    ? Object.entries(body).filter(([name]) => !DELIVERY_FIELDS.has(name))
    : Object.entries(chat).filter(([name]) => !CANONICAL_DELIVERY_FIELDS.has(name as keyof ChatRequest));
  const hash = createHash("sha256");
  hash.update(stableJson([owner, format, chat.model, Object.fromEntries(fields)]));
  return hash.digest("hex");
}

/** JSON with object keys sorted, at every depth. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
