import { createHmac } from "node:crypto";

/** `x-gateway-signature`: the hex HMAC-SHA256 of the raw body with the webhook's secret. */
export function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
