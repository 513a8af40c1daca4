"use client";

import { RowActions } from "@/app/_components/data-table";
import { Button } from "@/app/_components/ui";
import { useRowAction } from "@/app/_components/use-row-action";
import { deleteAccountAction, updateAccountAction } from "./actions";

/** Per-account controls: role, disable/enable, end every session, delete. */
export function AccountActions({ user, self }: { user: { id: string; email: string; role: string; disabled: boolean }; self: boolean }) {
  const { run, pending, error } = useRowAction();
  return (
    <RowActions>
      <Button size="sm" variant="secondary" disabled={pending || self} onClick={() => run(() => updateAccountAction(user.id, { role: user.role === "admin" ? "user" : "admin" }))}>
        {user.role === "admin" ? "Make user" : "Make admin"}
      </Button>
      <Button size="sm" variant="secondary" disabled={pending || self} onClick={() => run(() => updateAccountAction(user.id, { disabled: !user.disabled }))}>
        {user.disabled ? "Enable" : "Disable"}
      </Button>
      <Button size="sm" variant="secondary" disabled={pending} onClick={() => run(() => updateAccountAction(user.id, { signOutEverywhere: true }))}>
        End sessions
      </Button>
      <Button
        size="sm"
        variant="secondary"
        className="text-red-700 dark:text-red-400"
        disabled={pending || self}
        onClick={() => {
          if (window.confirm(`Delete ${user.email} and their tokens?`)) run(() => deleteAccountAction(user.id));
        }}
      >
        Delete
      </Button>
      {error && (
        <p role="alert" className="w-full text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </RowActions>
  );
}
