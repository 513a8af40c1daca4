import type { ReactNode } from "react";
import { currentUser } from "@/lib/console/require-session";
import { ConsoleNav } from "./console-nav";
import { SignInRedirect } from "./sign-in-redirect";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  // Each page redirects to sign in with its own address; a page that does not (an unknown
  // address) is sent from the browser, which knows the whole address.
  const user = await currentUser();
  if (!user) return <SignInRedirect />;
  return (
    <div className="min-h-screen bg-zinc-50 dark:bg-zinc-950 md:flex">
      <ConsoleNav email={user.email} admin={user.role === "admin"} />
      <main className="min-w-0 flex-1 px-4 py-6 md:px-8 md:py-8">{children}</main>
    </div>
  );
}
