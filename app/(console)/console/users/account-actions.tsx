"use client";

import { useRowAction } from "@/app/_components/use-row-action";
import { deleteAccountAction, updateAccountAction } from "./actions";

/** Per-account controls: role, disable/enable, end every session, delete. */
export function AccountActions({ user, self }: { user: { id: string; email: string; role: string; disabled: boolean }; self: boolean }) {
  const { run, pending, error } = useRowAction();
  const button = "rounded-md border border-zinc-300 px-2 py-1 text-xs font-medium hover:bg-zinc-50 disabled:opacity-50 dark:border-zinc-700 dark:hover:bg-zinc-800";
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <button type="button" className={button} disabled={pending || self} onClick={() => run(() => updateAccountAction(user.id, { role: user.role === "admin" ? "user" : "admin" }))}>
        {user.role === "admin" ? "Make user" : "Make admin"}
      </button>
      <button type="button" className={button} disabled={pending || self} onClick={() => run(() => updateAccountAction(user.id, { disabled: !user.disabled }))}>
        {user.disabled ? "Enable" : "Disable"}
      </button>
      <button type="button" className={button} disabled={pending} onClick={() => run(() => updateAccountAction(user.id, { signOutEverywhere: true }))}>
        End sessions
      </button>
      <button
        type="button"
        className={`${button} text-red-700 dark:text-red-400`}
        disabled={pending || self}
        onClick={() => {
          if (window.confirm(`Delete ${user.email} and their tokens?`)) run(() => deleteAccountAction(user.id));
        }}
      >
        Delete
      </button>
      {error && (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}
