import { hkdfSync } from "node:crypto";
import { decryptSecret, encryptSecret } from "./encryption";

// The gateway's own compaction items: a conversation summary sealed with AES-256-GCM under
// a key derived from the gateway's encryption key for this purpose only, bound to its owner.

/** Marks an `encrypted_content` the gateway sealed (OpenAI's own blobs never start so). */
export const SEALED_COMPACTION_PREFIX = "gwcompact1.";

/** This purpose's keys: the current one first, then those derived from keys before a rotation. */
export function compactionKeys(secrets: { encryptionKey: Buffer; previousEncryptionKeys: Buffer[] }): Buffer[] {
  return [secrets.encryptionKey, ...secrets.previousEncryptionKeys].map((key) => Buffer.from(hkdfSync("sha256", key, "", "gateway compaction v1", 32)));
}

export const isSealedCompaction = (value: string): boolean => value.startsWith(SEALED_COMPACTION_PREFIX);

export function sealCompaction(summary: string, owner: string, keys: Buffer[]): string {
  return SEALED_COMPACTION_PREFIX + encryptSecret(JSON.stringify({ owner, summary }), keys[0]!);
}

export type OpenedCompaction = { summary: string } | { refused: "tampered" | "other-owner" };

/** The summary, or why not: GCM refuses any changed byte; a sound seal names its owner. */
export function openCompaction(value: string, owner: string, keys: Buffer[]): OpenedCompaction {
  let sealed: { owner?: unknown; summary?: unknown };
  try {
    sealed = JSON.parse(decryptSecret(value.slice(SEALED_COMPACTION_PREFIX.length), keys));
  } catch {
    return { refused: "tampered" };
  }
  if (typeof sealed.summary !== "string") return { refused: "tampered" };
  return sealed.owner === owner ? { summary: sealed.summary } : { refused: "other-owner" };
}
