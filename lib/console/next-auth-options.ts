import type { NextAuthOptions } from "next-auth";
import type { OAuthConfig } from "next-auth/providers/oauth";
import CredentialsProvider from "next-auth/providers/credentials";
import { recordAudit } from "@/lib/audit/audit-log";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { loadSecrets } from "@/lib/crypto/secrets";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { getRuntime } from "@/lib/runtime";
import { signInWithPassword } from "./password-sign-in";

type OidcProfile = { sub: string; email?: string; name?: string };

/** Optional sign-in with any OpenID Connect provider, configured by env, off by default. */
function oidcProvider(): OAuthConfig<OidcProfile> | undefined {
  if (!env.OIDC_ISSUER || !env.OIDC_CLIENT_ID || !env.OIDC_CLIENT_SECRET) return undefined;
  return {
    id: "oidc",
    name: env.OIDC_NAME,
    type: "oauth",
    wellKnown: `${env.OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
    clientId: env.OIDC_CLIENT_ID,
    clientSecret: env.OIDC_CLIENT_SECRET,
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state"],
    profile: (profile) => ({ id: profile.sub, email: profile.email, name: profile.name }),
  };
}

/** The peer address server.ts worked out (trusted proxies honoured); never a raw X-Forwarded-For. */
function clientAddress(headers: Record<string, unknown> | undefined): string {
  const address = headers?.[CLIENT_ADDRESS_HEADER];
  return typeof address === "string" ? address : "unknown";
}

const oidc = oidcProvider();

export const authOptions: NextAuthOptions = {
  // NEXTAUTH_URL matters only for single sign-on callbacks; without OIDC its warning is noise.
  logger: {
    warn(code) {
      if (code === "NEXTAUTH_URL" && !oidc) return;
      logger.warn({ code }, "next-auth warning");
    },
    error(code, metadata) {
      logger.error({ code, err: metadata instanceof Error ? metadata : undefined }, "next-auth error");
    },
    debug() {},
  },
  secret: process.env.NEXTAUTH_SECRET ?? loadSecrets().authSecret,
  session: { strategy: "jwt", maxAge: 7 * 24 * 3600 },
  pages: { signIn: "/login", error: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request) {
        if (!credentials?.email || !credentials.password) return null;
        const { database, shared, deploymentId } = await getRuntime();
        return signInWithPassword({ database, shared, deploymentId }, { email: credentials.email, password: credentials.password }, clientAddress(request?.headers));
      },
    }),
    ...(oidc ? [oidc] : []),
  ],
  callbacks: {
    async signIn({ user, account }) {
      if (account?.provider !== "oidc") return true;
      if (!user.email) return false;
      // First OIDC sign-in creates a plain user account; admins can promote it.
      const { database } = await getRuntime();
      const email = user.email.toLowerCase();
      const row = await database.user.upsert({ where: { email }, create: { email, name: user.name, role: "user" }, update: {} });
      await recordAudit(database, {
        actor: { kind: "user", id: row.id, email },
        action: row.disabled ? "auth.sign_in_failed" : "auth.sign_in",
        target: { kind: "user", id: row.id, name: email },
        changes: row.disabled ? { reason: [null, "account disabled"] } : { provider: [null, "oidc"] },
        ip: null,
      });
      return !row.disabled;
    },
    async jwt({ token, user, account }) {
      if (account?.provider === "oidc" && token.email) {
        const { database } = await getRuntime();
        const row = await database.user.findUnique({ where: { email: token.email.toLowerCase() } });
        if (row) {
          token.sub = row.id;
          token.sessionVersion = row.sessionVersion;
        }
      } else if (user) {
        token.sessionVersion = (user as { sessionVersion?: number }).sessionVersion ?? 0;
      }
      return token;
    },
    // The role is not in the session: it is read from the account on every use (lib/auth/console-session.ts).
    session({ session, token }) {
      if (session.user) Object.assign(session.user, { id: token.sub, sessionVersion: token.sessionVersion });
      return session;
    },
  },
};

export const oidcEnabled = oidc !== undefined;
export const oidcName = env.OIDC_NAME;
