"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { Button, Card, DoneNote, ErrorNote, Field, Input } from "@/app/_components/ui";
import { changePasswordAction } from "./actions";

/** Changes one's own password, then signs in again with it (other sessions stay ended). */
export function PasswordForm() {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const [pending, startTransition] = useTransition();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const next = String(form.get("next") ?? "");
    if (next !== String(form.get("confirm") ?? "")) return setError("The new passwords do not match.");
    setError(null);
    setDone(false);
    startTransition(async () => {
      const result = await changePasswordAction({ current: String(form.get("current") ?? ""), next });
      if (!result.ok) return setError(result.error);
      await signIn("credentials", { email: result.email, password: next, redirect: false });
      formElement.reset();
      setDone(true);
      router.refresh();
    });
  }

  return (
    <Card className="max-w-md">
      <form onSubmit={submit} className="space-y-4" aria-label="Change password">
        <h2 className="text-base font-semibold">Change password</h2>
        <Field label="Current password" htmlFor="current">
          <Input id="current" name="current" type="password" required autoComplete="current-password" />
        </Field>
        <Field label="New password" htmlFor="next" hint="At least 8 characters. Your other sessions end.">
          <Input id="next" name="next" type="password" minLength={8} required autoComplete="new-password" />
        </Field>
        <Field label="Confirm new password" htmlFor="confirm">
          <Input id="confirm" name="confirm" type="password" minLength={8} required autoComplete="new-password" />
        </Field>
        {error && <ErrorNote>{error}</ErrorNote>}
        {done && <DoneNote>Password changed. Sessions elsewhere are signed out.</DoneNote>}
        <Button type="submit" disabled={pending}>
          {pending ? "Changing…" : "Change password"}
        </Button>
      </form>
    </Card>
  );
}
