"use client";

import { useActionState, useTransition } from "react";
import { LimitWindowsEditor, type WindowUse } from "@/app/_components/limit-windows-editor";
import { Button, ErrorNote, Field, Input, Select } from "@/app/_components/ui";
import type { LimitWindow } from "@/lib/limits/limit-windows";
import { createUserAction, setOpenSignupAction, updateUserLimitsAction, type LimitsFormState, type UserFormState } from "./actions";

export interface UserLimitsView {
  id: string;
  rpm: number | null;
  quotaTokens: number | null;
  budgetUsd: number | null;
  quotaPeriod: string;
  limits: LimitWindow[];
  /** Each limit window's use, in order. */
  windowUse: WindowUse[];
}

/** Limits for the user chatting as themselves; empty fields mean no limit. */
export function UserLimitsForm({ user }: { user: UserLimitsView }) {
  const [state, action, pending] = useActionState<LimitsFormState, FormData>(updateUserLimitsAction.bind(null, user.id), { error: null, saved: false });
  const summary = [
    user.rpm ? `${user.rpm} rpm` : null,
    user.quotaTokens !== null ? `${user.quotaTokens.toLocaleString()} tokens${user.quotaPeriod === "none" ? "" : ` ${user.quotaPeriod}`}` : null,
    user.budgetUsd !== null ? `$${user.budgetUsd}${user.quotaPeriod === "none" ? "" : ` ${user.quotaPeriod}`}` : null,
    user.limits.length ? `${user.limits.length} window${user.limits.length > 1 ? "s" : ""}` : null,
  ].filter(Boolean);
  return (
    <details className="text-sm">
      <summary className="cursor-pointer">{summary.length ? summary.join(" · ") : "Unlimited"}</summary>
      <form action={action} className="mt-2 grid max-w-xl grid-cols-2 gap-2" aria-label="Session limits">
        <label className="text-xs text-zinc-500">
          Requests/min
          <Input name="rpm" type="number" min={1} defaultValue={user.rpm ?? ""} />
        </label>
        <label className="text-xs text-zinc-500">
          Token quota
          <Input name="quotaTokens" type="number" min={0} defaultValue={user.quotaTokens ?? ""} />
        </label>
        <label className="text-xs text-zinc-500">
          Budget (USD)
          <Input name="budgetUsd" type="number" min={0} step="0.01" defaultValue={user.budgetUsd ?? ""} />
        </label>
        <label className="text-xs text-zinc-500">
          Resets
          <Select name="quotaPeriod" defaultValue={user.quotaPeriod}>
            <option value="none">Never</option>
            <option value="daily">Daily</option>
            <option value="weekly">Weekly</option>
            <option value="monthly">Monthly</option>
          </Select>
        </label>
        <div className="col-span-2">
          <LimitWindowsEditor windows={user.limits} usage={user.windowUse} idPrefix={`user-${user.id}`} />
        </div>
        <div className="col-span-2 flex items-center gap-2">
          <Button type="submit" disabled={pending}>
            Save limits
          </Button>
          {state.saved && <span className="text-emerald-700 dark:text-emerald-400">Saved</span>}
        </div>
        {state.error && (
          <div className="col-span-2">
            <ErrorNote>{state.error}</ErrorNote>
          </div>
        )}
      </form>
    </details>
  );
}

export function CreateUserForm() {
  const [state, action, pending] = useActionState<UserFormState, FormData>(createUserAction, { error: null, created: null });
  return (
    <form action={action} className="space-y-3" aria-label="Create user">
      <h2 className="text-base font-semibold">Add a user</h2>
      <Field label="Email" htmlFor="user-email">
        <Input id="user-email" name="email" type="email" required />
      </Field>
      <Field label="Initial password" htmlFor="user-password" hint="At least 8 characters; share it privately.">
        <Input id="user-password" name="password" type="password" minLength={8} required autoComplete="new-password" />
      </Field>
      <Field label="Role" htmlFor="user-role">
        <Select id="user-role" name="role" defaultValue="user">
          <option value="user">User</option>
          <option value="admin">Admin</option>
        </Select>
      </Field>
      {state.error && <ErrorNote>{state.error}</ErrorNote>}
      {state.created && <p className="text-sm text-emerald-700 dark:text-emerald-400">Created {state.created}.</p>}
      <Button type="submit" disabled={pending}>
        Add user
      </Button>
    </form>
  );
}

export function SignupToggle({ enabled }: { enabled: boolean }) {
  const [pending, startTransition] = useTransition();
  return (
    <div>
      <h2 className="text-base font-semibold">Open sign-up</h2>
      <p className="mt-1 text-sm text-zinc-500">{enabled ? "Anyone who can reach this deployment can create a user account." : "Only admins can create accounts."}</p>
      <Button className="mt-3" variant="secondary" disabled={pending} onClick={() => startTransition(() => setOpenSignupAction(!enabled))}>
        {enabled ? "Turn off" : "Turn on"}
      </Button>
    </div>
  );
}
