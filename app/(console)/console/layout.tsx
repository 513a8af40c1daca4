import type { ReactNode } from "react";
import { requireUser } from "@/lib/console/require-session";
import { ConsoleNav } from "./console-nav";

export const dynamic = "force-dynamic";

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <div className="min-h-screen bg-zinc-50 dark:bg-zinc-950 md:flex">
      <ConsoleNav email={user.email} admin={user.role === "admin"} />
      <main className="min-w-0 flex-1 px-4 py-6 md:px-8 md:py-8">{children}</main>
    </div>
  );
}
