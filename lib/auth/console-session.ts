import type { HeaderReader } from "@/lib/canonical/api-types";
import type { TokenCache } from "./token-cache";

export interface ConsoleSession {
  userId: string;
  email: string;
  role: "admin" | "user";
}

/** What a signed session token carries: who, and the account's session version when it was issued. */
export interface SessionClaims {
  sub?: string;
  email?: unknown;
  sessionVersion?: unknown;
}

const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

/**
 * A session is only as good as the account now: a deleted or disabled account, or one whose
 * session version moved on (password change, forced sign-out), has none; the role is the
 * account's current role, not the one signed into the cookie.
 */
export async function verifySessionClaims(claims: SessionClaims | null | undefined, tokens: TokenCache): Promise<ConsoleSession | null> {
  if (!claims?.sub || typeof claims.email !== "string") return null;
  const account = await tokens.account(claims.sub);
  if (!account || account.disabled || account.sessionVersion !== (typeof claims.sessionVersion === "number" ? claims.sessionVersion : 0)) return null;
  return { userId: claims.sub, email: claims.email, role: account.role };
}

/** Reads the next-auth session cookie without Next's request objects, so it works on the fast path too. */
export async function readConsoleSession(headers: HeaderReader, secret: string, tokens: TokenCache): Promise<ConsoleSession | null> {
  const cookieHeader = headers.get("cookie");
  if (!cookieHeader) return null;
  const cookies = new Map(
    cookieHeader.split(";").map((pair) => {
      const index = pair.indexOf("=");
      return [pair.slice(0, index).trim(), safeDecode(pair.slice(index + 1).trim())] as const;
    }),
  );
  const value = SESSION_COOKIES.map((name) => cookies.get(name)).find(Boolean);
  if (!value) return null;
  try {
    // Loaded with the first session cookie: a process that only serves the API never holds
    // next-auth and its JOSE library (about 130 modules, 0.6 MB of heap).
    const { decode } = await import("next-auth/jwt");
    return await verifySessionClaims(await decode({ token: value, secret }), tokens);
  } catch {
    return null;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
