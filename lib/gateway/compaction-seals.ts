import { compactionKeys, openCompaction, sealCompaction, type OpenedCompaction } from "@/lib/crypto/compaction-seal";
import type { Secrets } from "@/lib/crypto/secrets";
import type { GatewayContext } from "./with-api-key";

const keysBySecrets = new WeakMap<Secrets, Buffer[]>();

/**
 * Sealing and opening the gateway's compaction items for this caller: bound to the token's
 * user, or to the token itself when it has none, so another owner's item is refused.
 */
export function compactionSeals(context: GatewayContext): { seal(summary: string): string; open(value: string): OpenedCompaction } {
  const { secrets } = context.runtime;
  let keys = keysBySecrets.get(secrets);
  if (!keys) {
    keys = compactionKeys(secrets);
    keysBySecrets.set(secrets, keys);
  }
  const sealedKeys = keys;
  const owner = context.token.userId ? `user:${context.token.userId}` : `token:${context.token.id}`;
  return { seal: (summary) => sealCompaction(summary, owner, sealedKeys), open: (value) => openCompaction(value, owner, sealedKeys) };
}
