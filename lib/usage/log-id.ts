import { randomUUID } from "node:crypto";

/**
 * `req_` and a UUIDv7 in hex: a millisecond timestamp first, so new rows land at the end
 * of the primary-key index (random ids scatter inserts and slow them as the table grows).
 */
export function newLogId(now = Date.now()): string {
  // The random hex after randomUUID's version digit (its layout: 8-4-4-4-12), without the dashes.
  const random = randomUUID();
  const time = now.toString(16).padStart(12, "0").slice(-12);
  // Version 7 in the 13th hex digit; the variant bits stay as randomUUID set them.
  return `req_${time}7${random.slice(15, 18)}${random.slice(19, 23)}${random.slice(24)}`;
}
