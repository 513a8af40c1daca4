"use client";

import { useActionState, useTransition } from "react";
import { Button, ErrorNote, Field, Input, Select } from "@/app/_components/ui";
import { createUserAction, setOpenSignupAction, type UserFormState } from "./actions";

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
      <p className="mt-1 text-sm text-zinc-500">
        {enabled ? "Anyone who can reach this deployment can create a user account." : "Only admins can create accounts."}
      </p>
      <Button className="mt-3" variant="secondary" disabled={pending} onClick={() => startTransition(() => setOpenSignupAction(!enabled))}>
        {enabled ? "Turn off" : "Turn on"}
      </Button>
    </div>
  );
}
