"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { LimitWindowsEditor, type WindowUse } from "@/app/_components/limit-windows-editor";
import { Button, Card, ErrorNote, Field, Input, Select } from "@/app/_components/ui";
import type { TokenJson } from "@/lib/tokens/token-service";
import { createTokenAction, updateTokenAction } from "./actions";
import { naturalOrder } from "@/lib/console/natural-order";

export type Created = { token: TokenJson; key: string };

/** Creates a token, or edits every field of one (a change applies to the API at once). */
export function TokenForm({
  token,
  models,
  teams = [],
  usage,
  onCancel,
  onCreated,
  onSaved,
}: {
  token: TokenJson | null;
  models: string[];
  /** Teams the caller belongs to: a new token may be one of theirs (its budget and the caller's cap bind it). */
  teams?: { id: string; name: string }[];
  /** Each saved window's use, in the token's order. */
  usage?: WindowUse[];
  onCancel: () => void;
  onCreated?: (created: Created) => void;
  onSaved?: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const router = useRouter();
  const label = token ? `Edit token ${token.name}` : "Create token";
  // Models the token allows that no channel serves now stay checkable.
  const choices = [...new Set([...models, ...(token?.models ?? [])])].sort(naturalOrder);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const number = (name: string) => (String(form.get(name) ?? "").trim() ? Number(form.get(name)) : null);
    const windows = (name: string) => JSON.parse(String(form.get(name) ?? "[]")) as unknown[];
    const expires = String(form.get("expiresAt") ?? "");
    const input = {
      name: String(form.get("name") ?? ""),
      models: form.getAll("models").map(String),
      expiresAt: expires ? new Date(`${expires}T23:59:59Z`).toISOString() : null,
      quotaTokens: number("quotaTokens"),
      budgetUsd: number("budgetUsd"),
      quotaPeriod: String(form.get("quotaPeriod") ?? "none"),
      rpm: number("rpm"),
      tpm: number("tpm"),
      limits: windows("limits"),
      endUserLimits: windows("endUserLimits"),
      cacheTtlSeconds: number("cacheTtlSeconds"),
      // A token's team is chosen when it is created.
      ...(token ? {} : { teamId: String(form.get("teamId") ?? "") || null }),
    };
    startTransition(async () => {
      if (token) {
        const result = await updateTokenAction(token.id, input);
        if (!result.ok) return setError(result.error);
        onSaved?.();
      } else {
        const result = await createTokenAction(input);
        if (!result.ok) return setError(result.error);
        onCreated?.({ token: result.token, key: result.key });
      }
      router.refresh();
    });
  }

  return (
    <Card>
      <form onSubmit={submit} className="space-y-4" aria-label={label}>
        <h2 className="text-base font-semibold">{token ? `Edit “${token.name}”` : "New token"}</h2>
        <p className="text-xs text-zinc-500">
          The owner&rsquo;s account limits (models, rates, quota, budget, windows) apply to every token they own as well: these can only make a token tighter.
        </p>
        <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          <Field label="Name" htmlFor="token-name">
            <Input id="token-name" name="name" required maxLength={100} placeholder="e.g. my laptop" autoFocus defaultValue={token?.name} />
          </Field>
          <Field label="Expires" htmlFor="token-expires" hint="End of that day, UTC. Empty for no expiry.">
            <Input id="token-expires" name="expiresAt" type="date" defaultValue={token?.expiresAt?.slice(0, 10)} />
          </Field>
          <Field label="Requests per minute" htmlFor="token-rpm" hint="Empty for no limit.">
            <Input id="token-rpm" name="rpm" type="number" min={1} step={1} defaultValue={token?.rpm ?? undefined} />
          </Field>
          <Field label="Tokens per minute" htmlFor="token-tpm" hint="Empty for no limit.">
            <Input id="token-tpm" name="tpm" type="number" min={1} step={1} defaultValue={token?.tpm ?? undefined} />
          </Field>
          <Field label="Token quota" htmlFor="token-quota" hint="Prompt + completion tokens; empty for unlimited.">
            <Input id="token-quota" name="quotaTokens" type="number" min={0} step={1} defaultValue={token?.quotaTokens ?? undefined} />
          </Field>
          <Field label="Budget (USD)" htmlFor="token-budget" hint="From the channels' prices; empty for unlimited.">
            <Input id="token-budget" name="budgetUsd" type="number" min={0} step="any" defaultValue={token?.budgetUsd ?? undefined} />
          </Field>
          <Field label="Response cache (seconds)" htmlFor="token-cache-ttl" hint="Longest a request may cache its answer (x-gateway-cache-ttl); empty for off.">
            <Input id="token-cache-ttl" name="cacheTtlSeconds" type="number" min={1} max={604800} step={1} defaultValue={token?.cacheTtlSeconds ?? undefined} />
          </Field>
          {teams.length > 0 && (
            <Field label="Team" htmlFor="token-team" hint={token ? "Set when the token was created." : "The team's budget and your cap in it bind the token."}>
              <Select id="token-team" name="teamId" defaultValue={token?.teamId ?? ""} disabled={token !== null}>
                <option value="">No team</option>
                {teams.map((team) => (
                  <option key={team.id} value={team.id}>
                    {team.name}
                  </option>
                ))}
              </Select>
            </Field>
          )}
          <Field label="Quota period" htmlFor="token-period" hint="Quota and budget count from the period's start (UTC).">
            <Select id="token-period" name="quotaPeriod" defaultValue={token?.quotaPeriod ?? "none"}>
              <option value="none">Lifetime</option>
              <option value="daily">Daily</option>
              <option value="weekly">Weekly</option>
              <option value="monthly">Monthly</option>
            </Select>
          </Field>
        </div>
        <LimitWindowsEditor windows={token?.limits ?? []} usage={usage} idPrefix="token" />
        <LimitWindowsEditor
          windows={token?.endUserLimits ?? []}
          idPrefix="token-end-user"
          field="endUserLimits"
          help="Each end user of this token (named by the request's user, safety_identifier, metadata.user_id or the x-end-user-id header) gets these windows of their own."
        />
        <fieldset>
          <legend className="text-sm font-medium text-zinc-700 dark:text-zinc-300">Allowed models</legend>
          <p className="mb-2 text-xs text-zinc-500">None checked means every model.</p>
          <div className="flex flex-wrap gap-2">
            {choices.map((model) => (
              <label key={model} className="flex items-center gap-2 rounded-md border border-zinc-300 px-2 py-1 text-sm dark:border-zinc-700">
                <input type="checkbox" name="models" value={model} defaultChecked={token?.models.includes(model)} className="accent-indigo-600" />
                {model}
              </label>
            ))}
          </div>
        </fieldset>
        {error && <ErrorNote>{error}</ErrorNote>}
        <div className="flex gap-2">
          <Button type="submit" disabled={pending}>
            {pending ? "Saving…" : token ? "Save token" : "Create"}
          </Button>
          <Button type="button" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}
