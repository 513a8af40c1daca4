import type { HeaderReader } from "@/lib/canonical/api-types";
import { sameSecret } from "@/lib/crypto/same-secret";

// The common ways a right key is sent wrong, named so the caller can fix it at once.
// Read only after a request failed to authenticate: the accepted path never pays for it.

const KEY_HEADERS = ["x-api-key", "x-goog-api-key"] as const;

/**
 * What the caller most likely did wrong, given the headers it sent and the key the
 * format read from them (null when it found none); undefined when nothing is recognised.
 */
export function credentialSlip(headers: HeaderReader, key: string | null, adminApiKey: string): string | undefined {
  for (const name of KEY_HEADERS) {
    const value = headers.get(name);
    if (value && /^\s*bearer\s+\S/i.test(value)) {
      return `The ${name} header holds "Bearer " before the key: drop the word Bearer in ${name} (${name}: YOUR_KEY). Only the Authorization header takes it.`;
    }
  }
  const authorization = headers.get("authorization")?.trim();
  if (authorization && /^bearer\s+bearer\s+\S/i.test(authorization)) {
    return 'The Authorization header says "Bearer Bearer": the SDK adds the word Bearer itself, so give it the key alone (YOUR_KEY, without "Bearer ").';
  }
  if (!key && authorization && !/^bearer\s/i.test(authorization)) {
    const scheme = /^(basic|token|key|apikey|api-key)\s/i.exec(authorization)?.[1];
    return scheme
      ? `The Authorization header uses the ${scheme} scheme: this API takes Authorization: Bearer YOUR_KEY.`
      : "The Authorization header holds the key without the word Bearer: send Authorization: Bearer YOUR_KEY.";
  }
  const presented = key ?? authorization?.replace(/^bearer\s+/i, "");
  if (presented && sameSecret(presented, adminApiKey)) {
    return "This is the admin API key, which only the admin API (/api/admin/...) takes: create a token (console Tokens page, or POST /api/admin/tokens) and call the API with its key.";
  }
  return undefined;
}
