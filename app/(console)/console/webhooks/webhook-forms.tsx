"use client";

import { useActionState } from "react";
import { CopyButton } from "@/app/_components/copy-button";
import { RowActions } from "@/app/_components/data-table";
import { Button, ErrorNote, Field, Input } from "@/app/_components/ui";
import { useRowAction } from "@/app/_components/use-row-action";
import { WEBHOOK_EVENTS } from "@/lib/webhooks/webhook-events";
import { createWebhookAction, deleteWebhookAction, setWebhookEnabledAction, testWebhookAction, type WebhookFormState } from "./actions";

const EVENT_HINTS: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  "budget.threshold": "a limit window crossed one of its alert thresholds",
  "budget.exhausted": "a limit window reached its limit",
  "channel.disabled": "the gateway took a channel out of rotation (revoked key, no credit)",
  "channel.restored": "a disabled channel answers again",
  "channel.circuit_open": "a channel kept failing and is skipped for a while",
  "key.disabled": "one key of a channel's pool was refused",
};

export function CreateWebhookForm() {
  const [state, action, pending] = useActionState<WebhookFormState, FormData>(createWebhookAction, { error: null, created: null });
  return (
    <form action={action} className="space-y-3" aria-label="Add a webhook">
      <h2 className="text-base font-semibold">Add a webhook</h2>
      <Field
        label="URL"
        htmlFor="webhook-url"
        hint="A public http(s) address; private ones only when FETCH_ALLOWED_HOSTS names the host. Slack and Teams incoming webhooks show each event's text."
      >
        <Input id="webhook-url" name="url" type="url" required placeholder="https://hooks.example.com/gateway" />
      </Field>
      <fieldset className="space-y-1">
        <legend className="text-sm font-medium">Events</legend>
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} className="flex items-start gap-2 text-sm">
            <input type="checkbox" name={event} defaultChecked={event !== "channel.restored"} className="mt-1" />
            <span>
              <code className="text-xs">{event}</code> <span className="text-zinc-500">{EVENT_HINTS[event]}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <Field label="Signing secret" htmlFor="webhook-secret" hint="Optional: one is generated when left empty. Shown once.">
        <Input id="webhook-secret" name="secret" type="text" minLength={16} autoComplete="off" />
      </Field>
      {state.error && <ErrorNote>{state.error}</ErrorNote>}
      {state.created && (
        <div className="rounded-md bg-emerald-50 p-3 text-sm dark:bg-emerald-500/10" data-testid="webhook-secret">
          <p>Added. Its deliveries are signed with this secret (x-gateway-signature); it is not shown again:</p>
          <p className="mt-1 flex items-center gap-2 break-all font-mono text-xs">
            {state.created.secret} <CopyButton text={state.created.secret} />
          </p>
        </div>
      )}
      <Button type="submit" disabled={pending}>
        Add webhook
      </Button>
    </form>
  );
}

export function WebhookActions({ webhook }: { webhook: { id: string; url: string; enabled: boolean } }) {
  const { run, pending, error } = useRowAction();
  return (
    <RowActions>
      <Button size="sm" variant="secondary" disabled={pending} onClick={() => run(() => testWebhookAction(webhook.id))}>
        Send test
      </Button>
      <Button size="sm" variant="secondary" disabled={pending} onClick={() => run(() => setWebhookEnabledAction(webhook.id, !webhook.enabled))}>
        {webhook.enabled ? "Disable" : "Enable"}
      </Button>
      <Button
        size="sm"
        variant="secondary"
        className="text-red-700 dark:text-red-400"
        disabled={pending}
        onClick={() => {
          if (window.confirm(`Delete the webhook to ${webhook.url}?`)) run(() => deleteWebhookAction(webhook.id));
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
