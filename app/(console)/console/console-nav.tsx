"use client";

import Link from "next/link";
import { usePathname, useRouter } from "next/navigation";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { cx } from "@/app/_components/ui";

const LINKS = [
  { href: "/console", label: "Dashboard", admin: false },
  { href: "/console/playground", label: "Playground", admin: false },
  { href: "/console/tokens", label: "Tokens", admin: false },
  { href: "/console/teams", label: "Teams", admin: false },
  { href: "/console/logs", label: "Logs", admin: false },
  { href: "/console/api", label: "API reference", admin: false },
  { href: "/console/channels", label: "Channels", admin: true },
  { href: "/console/models", label: "Models", admin: true },
  { href: "/console/mcp", label: "MCP servers", admin: true },
  { href: "/console/users", label: "Users", admin: true },
  { href: "/console/webhooks", label: "Webhooks", admin: true },
  { href: "/console/audit", label: "Audit log", admin: true },
  { href: "/console/account", label: "Account", admin: false },
];

export function ConsoleNav({ email, admin }: { email: string; admin: boolean }) {
  const pathname = usePathname();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const links = LINKS.filter((link) => admin || !link.admin);
  const active = (href: string) => (href === "/console" ? pathname === href : pathname.startsWith(href));
  return (
    <aside className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900 md:w-56 md:shrink-0 md:border-b-0 md:border-r">
      <nav aria-label="Console" className="md:sticky md:top-0 md:h-screen">
        <div className="flex items-center justify-between px-4 py-3 md:py-5">
          <Link href="/console" className="flex items-center gap-2 font-semibold">
            <span className="flex h-7 w-7 items-center justify-center rounded-md bg-indigo-600 text-sm font-bold text-white">G</span>
            Model Gateway
          </Link>
          <button
            type="button"
            className="rounded-md px-2 py-1 text-sm text-zinc-600 ring-1 ring-zinc-300 md:hidden dark:text-zinc-300 dark:ring-zinc-700"
            aria-expanded={open}
            aria-controls="console-links"
            onClick={() => setOpen((value) => !value)}
          >
            Menu
          </button>
        </div>
        <div id="console-links" className={cx("px-2 pb-3 md:block", open ? "block" : "hidden")}>
          <ul className="space-y-0.5">
            {links.map((link) => (
              <li key={link.href}>
                <Link
                  href={link.href}
                  onClick={() => setOpen(false)}
                  aria-current={active(link.href) ? "page" : undefined}
                  className={cx(
                    "block rounded-md px-3 py-2 text-sm font-medium",
                    active(link.href)
                      ? "bg-indigo-50 text-indigo-700 dark:bg-indigo-500/10 dark:text-indigo-300"
                      : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
                  )}
                >
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
          <div className="mt-4 border-t border-zinc-200 px-3 pt-3 text-xs text-zinc-500 dark:border-zinc-800 md:absolute md:bottom-4 md:left-2 md:right-2 md:mt-0">
            <Link href="/console/account" className="block truncate hover:underline" title={`${email}: your account`}>
              {email}
            </Link>
            <button
              type="button"
              className="mt-1 font-medium text-zinc-700 hover:underline dark:text-zinc-300"
              onClick={async () => {
                // No redirect from next-auth: it would build it from NEXTAUTH_URL, which may be unset.
                await signOut({ redirect: false });
                router.replace("/login");
                router.refresh();
              }}
            >
              Sign out
            </button>
          </div>
        </div>
      </nav>
    </aside>
  );
}
