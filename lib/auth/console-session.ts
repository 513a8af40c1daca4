import { decode } from "next-auth/jwt";
import type { HeaderReader } from "@/lib/http/api-types";

export interface ConsoleSession {
  userId: string;
  email: string;
  role: "admin" | "user";
}

const SESSION_COOKIES = ["__Secure-next-auth.session-token", "next-auth.session-token"];

/** Reads the next-auth session cookie without Next's request objects, so it works on the fast path too. */
export async function readConsoleSession(headers: HeaderReader, secret: string): Promise<ConsoleSession | null> {
  const cookieHeader = headers.get("cookie");
  if (!cookieHeader) return null;
  const cookies = new Map(
    cookieHeader.split(";").map((pair) => {
      const index = pair.indexOf("=");
      return [pair.slice(0, index).trim(), decodeURIComponent(pair.slice(index + 1).trim())] as const;
    }),
  );
  const value = SESSION_COOKIES.map((name) => cookies.get(name)).find(Boolean);
  if (!value) return null;
  try {
    const token = await decode({ token: value, secret });
    if (!token?.sub || typeof token.email !== "string") return null;
    return { userId: token.sub, email: token.email, role: token.role === "admin" ? "admin" : "user" };
  } catch {
    return null;
  }
}
