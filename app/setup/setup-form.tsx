"use client";

import { useActionState } from "react";
import { Button, Card, ErrorNote, Field, Input } from "@/app/_components/ui";
import { createFirstAdmin, type SetupState } from "./actions";

export function SetupForm() {
  const [state, action, pending] = useActionState<SetupState, FormData>(createFirstAdmin, { error: null });
  return (
    <Card className="p-6">
      <form action={action} className="space-y-4">
        <Field label="Email" htmlFor="email">
          <Input id="email" name="email" type="email" required autoFocus />
        </Field>
        <Field label="Password" htmlFor="password" hint="At least 8 characters.">
          <Input id="password" name="password" type="password" minLength={8} required />
        </Field>
        <Field label="Confirm password" htmlFor="confirm">
          <Input id="confirm" name="confirm" type="password" minLength={8} required />
        </Field>
        {state.error && <ErrorNote>{state.error}</ErrorNote>}
        <Button type="submit" className="w-full" disabled={pending}>
          Create admin account
        </Button>
      </form>
    </Card>
  );
}
