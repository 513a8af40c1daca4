"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { CopyButton } from "@/app/_components/copy-button";
import { formatDateTime, formatNumber, formatRelative } from "@/app/_components/format";
import { useRowAction } from "@/app/_components/use-row-action";
import { Badge, Button, Card, EmptyState, ErrorNote, Field, Input, Table, Td, Th, cx } from "@/app/_components/ui";
import type { TokenJson } from "@/lib/tokens/token-service";
import { createTokenAction, deleteTokenAction, setTokenEnabledAction } from "./actions";
import { tokenSnippets } from "./snippets";

type Created = { token: TokenJson; key: string };

export function TokenManager({ tokens, models, baseUrl, now }: { tokens: TokenJson[]; models: string[]; baseUrl: string; now: number }) {
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Created | null>(null);
  return (
    <div className="space-y-6">
      {created ? (
        <NewKey created={created} baseUrl={baseUrl} model={created.token.models[0] ?? models[0] ?? "mock-chat"} onDone={() => setCreated(null)} />
      ) : creating ? (
        <CreateTokenForm
          models={models}
          onCancel={() => setCreating(false)}
          onCreated={(value) => {
            setCreating(false);
            setCreated(value);
          }}
        />
      ) : (
        <Button onClick={() => setCreating(true)}>Create token</Button>
      )}
      {tokens.length === 0 ? (
        <EmptyState title="No tokens yet">Create a token to call the API from your code or the Playground.</EmptyState>
      ) : (
        <TokenTable tokens={tokens} now={now} />
      )}
    </div>
  );
}

function CreateTokenForm({ models, onCancel, onCreated }: { models: string[]; onCancel: () => void; onCreated: (created: Created) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const router = useRouter();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const number = (name: string) => (form.get(name) ? Number(form.get(name)) : null);
    const expires = String(form.get("expiresAt") ?? "");
    const input = {
      name: String(form.get("name") ?? ""),
      models: form.getAll("models").map(String),
      expiresAt: expires ? new Date(`${expires}T23:59:59Z`).toISOString() : null,
      quotaTokens: number("quotaTokens"),
      rpm: number("rpm"),
    };
    startTransition(async () => {
      const result = await createTokenAction(input);
      if (!result.ok) return setError(result.error);
      onCreated({ token: result.token, key: result.key });
      router.refresh();
    });
  }

  return (
    <Card>
      <form onSubmit={submit} className="space-y-4" aria-label="Create token">
        <h2 className="text-base font-semibold">New token</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Name" htmlFor="token-name">
            <Input id="token-name" name="name" required maxLength={100} placeholder="e.g. my laptop" autoFocus />
          </Field>
          <Field label="Expires" htmlFor="token-expires" hint="Leave empty for no expiry.">
            <Input id="token-expires" name="expiresAt" type="date" />
          </Field>
          <Field label="Token quota" htmlFor="token-quota" hint="Prompt + completion tokens; empty for unlimited.">
            <Input id="token-quota" name="quotaTokens" type="number" min={0} step={1} />
          </Field>
          <Field label="Requests per minute" htmlFor="token-rpm" hint="Empty for no limit.">
            <Input id="token-rpm" name="rpm" type="number" min={1} step={1} />
          </Field>
        </div>
        <fieldset>
          <legend className="text-sm font-medium text-zinc-700 dark:text-zinc-300">Allowed models</legend>
          <p className="mb-2 text-xs text-zinc-500">None checked means every model.</p>
          <div className="flex flex-wrap gap-2">
            {models.map((model) => (
              <label key={model} className="flex items-center gap-2 rounded-md border border-zinc-300 px-2 py-1 text-sm dark:border-zinc-700">
                <input type="checkbox" name="models" value={model} className="accent-indigo-600" />
                {model}
              </label>
            ))}
          </div>
        </fieldset>
        {error && <ErrorNote>{error}</ErrorNote>}
        <div className="flex gap-2">
          <Button type="submit" disabled={pending}>
            {pending ? "Creating…" : "Create"}
          </Button>
          <Button type="button" variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}

function NewKey({ created, baseUrl, model, onDone }: { created: Created; baseUrl: string; model: string; onDone: () => void }) {
  const snippets = tokenSnippets(baseUrl, created.key, model);
  const [tab, setTab] = useState<keyof typeof snippets>("curl");
  return (
    <Card className="border-emerald-300 dark:border-emerald-500/40">
      <h2 className="text-base font-semibold">Token “{created.token.name}” created</h2>
      <p className="mt-1 text-sm text-zinc-500">Copy the key now: it is shown only once and cannot be recovered.</p>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <code data-testid="new-token-key" className="min-w-0 flex-1 break-all rounded-md bg-zinc-100 px-3 py-2 font-mono text-sm dark:bg-zinc-800">
          {created.key}
        </code>
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <div className="mt-4">
        <div role="tablist" aria-label="Code examples" className="flex gap-1">
          {(Object.keys(snippets) as (keyof typeof snippets)[]).map((name) => (
            <button
              key={name}
              role="tab"
              type="button"
              aria-selected={tab === name}
              onClick={() => setTab(name)}
              className={cx("rounded-md px-3 py-1 text-sm", tab === name ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800")}
            >
              {name === "curl" ? "curl" : name === "python" ? "Python" : "TypeScript"}
            </button>
          ))}
        </div>
        <div className="relative mt-2">
          <pre className="overflow-x-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100">{snippets[tab]}</pre>
          <div className="absolute right-2 top-2">
            <CopyButton text={snippets[tab]} />
          </div>
        </div>
      </div>
      <Button className="mt-4" variant="secondary" onClick={onDone}>
        Done
      </Button>
    </Card>
  );
}

function status(token: TokenJson, now: number): { label: string; tone: "green" | "red" | "amber" | "zinc" } {
  if (!token.enabled) return { label: "Disabled", tone: "zinc" };
  if (token.expiresAt && new Date(token.expiresAt).getTime() <= now) return { label: "Expired", tone: "red" };
  if (token.quotaTokens !== null && token.usedTokens >= token.quotaTokens) return { label: "Quota used", tone: "amber" };
  return { label: "Active", tone: "green" };
}

function TokenTable({ tokens, now }: { tokens: TokenJson[]; now: number }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Key</Th>
          <Th>Models</Th>
          <Th>Expires</Th>
          <Th>Quota used / left</Th>
          <Th>RPM</Th>
          <Th>Status</Th>
          <Th>Last used</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
        {tokens.map((token) => (
          <TokenRow key={token.id} token={token} now={now} />
        ))}
      </tbody>
    </Table>
  );
}

function TokenRow({ token, now }: { token: TokenJson; now: number }) {
  const [confirming, setConfirming] = useState(false);
  const { run, pending, error } = useRowAction();
  const state = status(token, now);
  return (
    <tr data-testid={`token-row-${token.name}`}>
      <Td className="font-medium">{token.name}</Td>
      <Td className="font-mono text-xs">{token.keyPrefix}</Td>
      <Td className="max-w-48 truncate">{token.models.length ? token.models.join(", ") : <span className="text-zinc-400">all</span>}</Td>
      <Td>{token.expiresAt ? formatDateTime(token.expiresAt).slice(0, 10) : <span className="text-zinc-400">never</span>}</Td>
      <Td>
        {formatNumber(token.usedTokens)} / {token.quotaTokens === null ? "∞" : formatNumber(Math.max(0, token.quotaTokens - token.usedTokens))}
      </Td>
      <Td>{token.rpm ?? <span className="text-zinc-400">—</span>}</Td>
      <Td>
        <Badge tone={state.tone}>{state.label}</Badge>
      </Td>
      <Td title={formatDateTime(token.lastUsedAt)}>{formatRelative(token.lastUsedAt, now)}</Td>
      <Td>
        <div className="flex justify-end gap-1">
          {confirming ? (
            <>
              <Button variant="danger" disabled={pending} onClick={() => run(() => deleteTokenAction(token.id))}>
                Confirm delete
              </Button>
              <Button variant="ghost" onClick={() => setConfirming(false)}>
                Keep
              </Button>
            </>
          ) : (
            <>
              <Button variant="secondary" disabled={pending} onClick={() => run(() => setTokenEnabledAction(token.id, !token.enabled))}>
                {token.enabled ? "Disable" : "Enable"}
              </Button>
              <Button variant="ghost" onClick={() => setConfirming(true)}>
                Delete
              </Button>
            </>
          )}
        </div>
        {error && <p className="mt-1 text-xs text-red-600">{error}</p>}
      </Td>
    </tr>
  );
}
