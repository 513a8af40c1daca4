"use client";

import { useActionState } from "react";
import { Button, Card, ErrorNote, Field, Input } from "./ui";

type State = { error: string | null };

/** Email + password form for a new account (first-admin setup and open sign-up). */
export function AccountForm({
  action,
  submitLabel,
  confirm = false,
}: {
  action: (state: State, form: FormData) => Promise<State>;
  submitLabel: string;
  confirm?: boolean;
}) {
  const [state, formAction, pending] = useActionState<State, FormData>(action, { error: null });
  return (
    <Card className="p-6">
      <form action={formAction} className="space-y-4">
        <Field label="Email" htmlFor="email">
          <Input id="email" name="email" type="email" required autoFocus />
        </Field>
        <Field label="Password" htmlFor="password" hint="At least 8 characters.">
          <Input id="password" name="password" type="password" minLength={8} required autoComplete="new-password" />
        </Field>
        {confirm && (
          <Field label="Confirm password" htmlFor="confirm">
            <Input id="confirm" name="confirm" type="password" minLength={8} required autoComplete="new-password" />
          </Field>
        )}
        {state.error && <ErrorNote>{state.error}</ErrorNote>}
        <Button type="submit" className="w-full" disabled={pending}>
          {submitLabel}
        </Button>
      </form>
    </Card>
  );
}
