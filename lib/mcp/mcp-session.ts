import { hkdfSync } from "node:crypto";
import { decryptSecret, encryptSecret } from "@/lib/crypto/encryption";

// The Mcp-Session-Id: what a session needs, sealed with AES-256-GCM under a key derived from
// the gateway's encryption key, so any process of the deployment can open it and none keeps it.

export interface McpSession {
  tokenId: string;
  /** The one server of /mcp/{server}, or null for the aggregate /mcp. */
  server: string | null;
  protocolVersion: string;
  createdAt: number;
}

export function sessionKeys(secrets: { encryptionKey: Buffer; previousEncryptionKeys: Buffer[] }): Buffer[] {
  return [secrets.encryptionKey, ...secrets.previousEncryptionKeys].map((key) => Buffer.from(hkdfSync("sha256", key, "", "gateway mcp session v1", 32)));
}

export function sealSession(session: McpSession, keys: Buffer[]): string {
  // base64url keeps the id within the visible ASCII the transport requires.
  return Buffer.from(encryptSecret(JSON.stringify(session), keys[0]!)).toString("base64url");
}

/** The session, or null when the id is not one this deployment sealed. */
export function openSession(id: string, keys: Buffer[]): McpSession | null {
  try {
    const value = JSON.parse(decryptSecret(Buffer.from(id, "base64url").toString(), keys)) as Partial<McpSession>;
    if (typeof value.tokenId !== "string" || typeof value.protocolVersion !== "string") return null;
    return { tokenId: value.tokenId, server: typeof value.server === "string" ? value.server : null, protocolVersion: value.protocolVersion, createdAt: Number(value.createdAt) };
  } catch {
    return null;
  }
}
