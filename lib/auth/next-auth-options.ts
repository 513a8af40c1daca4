import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { loadSecrets } from "@/lib/crypto/secrets";
import { getRuntime } from "@/lib/runtime";
import { verifyPassword } from "./password";

export const authOptions: NextAuthOptions = {
  secret: process.env.NEXTAUTH_SECRET ?? loadSecrets().authSecret,
  session: { strategy: "jwt", maxAge: 7 * 24 * 3600 },
  pages: { signIn: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials) {
        if (!credentials?.email || !credentials.password) return null;
        const { database } = await getRuntime();
        const user = await database.user.findUnique({ where: { email: credentials.email.toLowerCase() } });
        if (!user?.passwordHash || !(await verifyPassword(credentials.password, user.passwordHash))) return null;
        return { id: user.id, email: user.email, name: user.name, role: user.role };
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) token.role = (user as { role?: string }).role ?? "user";
      return token;
    },
    session({ session, token }) {
      if (session.user) Object.assign(session.user, { id: token.sub, role: token.role });
      return session;
    },
  },
};
