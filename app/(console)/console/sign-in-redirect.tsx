"use client";

import { useEffect } from "react";
import { signInPath } from "@/lib/console/return-path";

/** Sends a visitor without a session to sign in, and back to this very address afterwards. */
export function SignInRedirect() {
  useEffect(() => {
    window.location.replace(signInPath(window.location.pathname + window.location.search));
  }, []);
  return <p className="p-8 text-sm text-zinc-500">Signing in…</p>;
}
