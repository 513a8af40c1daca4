"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { Button, Card, ErrorNote, Field, Input } from "./ui";

type Result = { error: string | null };

/**
 * Email + password form for a new account (first-admin setup and open sign-up). What was
 * typed stays after an error; once the account exists, it signs in and opens the console.
 */
export function AccountForm({
  action,
  submitLabel,
  confirm = false,
  setupCode = false,
}: {
  action: (form: FormData) => Promise<Result>;
  submitLabel: string;
  confirm?: boolean;
  /** First-admin setup: ask for the one-time code start-up printed. */
  setupCode?: boolean;
}) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setError(null);
    startTransition(async () => {
      const result = await action(form);
      if (result.error) return setError(result.error);
      const signedIn = await signIn("credentials", { email: String(form.get("email")), password: String(form.get("password")), redirect: false });
      if (signedIn?.ok && !signedIn.error) {
        router.replace("/console");
        router.refresh();
      } else {
        router.replace("/login");
      }
    });
  }

  return (
    <Card className="p-6">
      <form onSubmit={submit} className="space-y-4">
        {setupCode && (
          <Field label="Setup code" htmlFor="code" hint="Printed at start-up, and kept in DATA_DIR/setup-code.">
            <Input id="code" name="code" required autoFocus autoComplete="off" spellCheck={false} placeholder="XXXX-XXXX-XXXX-XXXX" />
          </Field>
        )}
        <Field label="Email" htmlFor="email">
          <Input id="email" name="email" type="email" required autoFocus={!setupCode} autoComplete="email" />
        </Field>
        <Field label="Password" htmlFor="password" hint="At least 8 characters.">
          <Input id="password" name="password" type="password" minLength={8} required autoComplete="new-password" />
        </Field>
        {confirm && (
          <Field label="Confirm password" htmlFor="confirm">
            <Input id="confirm" name="confirm" type="password" minLength={8} required autoComplete="new-password" />
          </Field>
        )}
        {error && <ErrorNote>{error}</ErrorNote>}
        <Button type="submit" className="w-full" disabled={pending}>
          {pending ? "Creating…" : submitLabel}
        </Button>
      </form>
    </Card>
  );
}
