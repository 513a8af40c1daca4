"use client";

import { useState } from "react";
import { CopyButton } from "@/app/_components/copy-button";
import { formatDateTime, formatNumber, formatRelative, formatUsd } from "@/app/_components/format";
import { useRowAction } from "@/app/_components/use-row-action";
import { RowActions, Table, Td, Th, Truncate } from "@/app/_components/data-table";
import type { WindowUse } from "@/app/_components/limit-windows-editor";
import { Badge, Button, Card, DoneNote, EmptyState } from "@/app/_components/ui";
import type { LimitWindow } from "@/lib/limits/limit-windows";
import type { TokenJson } from "@/lib/tokens/token-service";
import { deleteTokenAction, setTokenEnabledAction } from "./actions";
import { SnippetTabs } from "./snippet-tabs";
import { TokenForm, type Created } from "./token-form";

type Editing = { kind: "new" } | { kind: "edit"; token: TokenJson } | null;

export function TokenManager({
  tokens,
  models,
  baseUrl,
  now,
  cachedShares = {},
  windowUse = {},
  teams = [],
}: {
  tokens: TokenJson[];
  models: string[];
  baseUrl: string;
  now: number;
  /** Per token id, the part of its input tokens upstreams served from their prompt cache. */
  cachedShares?: Record<string, number>;
  /** Per token id: each limit window's use. */
  windowUse?: Record<string, WindowUse[]>;
  /** The teams a new token may belong to (the caller's own). */
  teams?: { id: string; name: string }[];
}) {
  const [editing, setEditing] = useState<Editing>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <div className="space-y-6">
      {created ? (
        <NewKey created={created} baseUrl={baseUrl} model={created.token.models[0] ?? models[0] ?? "mock-chat"} onDone={() => setCreated(null)} />
      ) : editing ? (
        <TokenForm
          key={editing.kind === "edit" ? editing.token.id : "new"}
          token={editing.kind === "edit" ? editing.token : null}
          models={models}
          teams={teams}
          usage={editing.kind === "edit" ? windowUse[editing.token.id] : undefined}
          onCancel={() => setEditing(null)}
          onCreated={(value) => {
            setEditing(null);
            setCreated(value);
          }}
          onSaved={() => {
            setSaved(editing.kind === "edit" ? editing.token.name : null);
            setEditing(null);
          }}
        />
      ) : (
        <Button onClick={() => setEditing({ kind: "new" })}>Create token</Button>
      )}
      {saved && <DoneNote>Saved “{saved}”: the API applies the change to the next request.</DoneNote>}
      {tokens.length === 0 ? (
        <EmptyState title="No tokens yet">Create a token to call the API from your code or the Playground.</EmptyState>
      ) : (
        <TokenTable
          tokens={tokens}
          cachedShares={cachedShares}
          now={now}
          baseUrl={baseUrl}
          fallbackModel={models[0] ?? "mock-chat"}
          onEdit={(token) => {
            setSaved(null);
            setEditing({ kind: "edit", token });
          }}
        />
      )}
    </div>
  );
}

function NewKey({ created, baseUrl, model, onDone }: { created: Created; baseUrl: string; model: string; onDone: () => void }) {
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
        <SnippetTabs baseUrl={baseUrl} apiKey={created.key} model={model} />
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
  if (token.budgetUsd !== null && token.usedUsd >= token.budgetUsd) return { label: "Budget used", tone: "amber" };
  return { label: "Active", tone: "green" };
}

const PERIOD: Record<string, string> = { none: "", daily: " a day", weekly: " a week", monthly: " a month" };

const windowText = (window: LimitWindow) =>
  [
    `${window.window}:`,
    window.requests !== undefined && `${formatNumber(window.requests)} requests`,
    window.tokens !== undefined && `${formatNumber(window.tokens)} tokens`,
    window.usd !== undefined && formatUsd(window.usd),
    window.models && `(${window.models.join(", ")})`,
  ]
    .filter(Boolean)
    .join(" ");

function TokenTable(props: { tokens: TokenJson[]; cachedShares: Record<string, number>; now: number; baseUrl: string; fallbackModel: string; onEdit: (token: TokenJson) => void }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Name</Th>
          <Th>Key</Th>
          <Th>Models</Th>
          <Th>Expires</Th>
          <Th>Limits</Th>
          <Th className="text-right">Used</Th>
          <Th>Status</Th>
          <Th>
            <span className="sr-only">Actions</span>
          </Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
        {props.tokens.map((token) => (
          <TokenRow key={token.id} token={token} {...props} />
        ))}
      </tbody>
    </Table>
  );
}

function TokenRow({
  token,
  cachedShares,
  now,
  baseUrl,
  fallbackModel,
  onEdit,
}: {
  token: TokenJson;
  cachedShares: Record<string, number>;
  now: number;
  baseUrl: string;
  fallbackModel: string;
  onEdit: (token: TokenJson) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [showSnippets, setShowSnippets] = useState(false);
  const { run, pending, error } = useRowAction();
  const state = status(token, now);
  const limits = [
    token.rpm !== null && `${formatNumber(token.rpm)} req/min`,
    token.tpm !== null && `${formatNumber(token.tpm)} tok/min`,
    token.cacheTtlSeconds !== null && `cache ≤ ${formatNumber(token.cacheTtlSeconds)} s`,
    token.quotaTokens !== null && `${formatNumber(token.quotaTokens)} tokens${PERIOD[token.quotaPeriod] ?? ""}`,
    token.budgetUsd !== null && `${formatUsd(token.budgetUsd)}${PERIOD[token.quotaPeriod] ?? ""}`,
    ...token.limits.map((window) => windowText(window)),
    ...token.endUserLimits.map((window) => `each end user, ${windowText(window)}`),
  ].filter(Boolean);
  return (
    <>
      <tr data-testid={`token-row-${token.name}`}>
        <Td label="Name" wide className="font-medium">
          <Truncate text={token.name} className="xl:max-w-[10rem]" />
        </Td>
        <Td label="Key" className="whitespace-nowrap font-mono text-xs">
          {token.keyPrefix}
        </Td>
        <Td label="Models" wide className="text-xs">
          {token.models.length ? <Truncate text={token.models.join(", ")} className="xl:max-w-[10rem]" /> : <span className="text-zinc-400">all</span>}
        </Td>
        <Td label="Expires" className="whitespace-nowrap text-xs">
          {token.expiresAt ? formatDateTime(token.expiresAt).slice(0, 10) : <span className="text-zinc-400">never</span>}
        </Td>
        <Td label="Limits" wide className="text-xs" data-testid="token-limits">
          {limits.length ? limits.map((limit) => <div key={String(limit)}>{limit}</div>) : <span className="text-zinc-400">none</span>}
        </Td>
        <Td label="Used" className="tabular-nums xl:whitespace-nowrap xl:text-right" data-testid="token-used">
          {/* In a phone's narrow card the word wraps under the number; the number never breaks. */}
          <span className="whitespace-nowrap">{formatNumber(token.usedTokens)}</span> tokens
          <div className="text-xs text-zinc-500">{formatUsd(token.usedUsd)}</div>
          {cachedShares[token.id] !== undefined && (
            <div className="text-xs text-zinc-500 xl:whitespace-nowrap" data-testid="token-cached-share" title="Input tokens upstreams served from their prompt cache">
              {Math.round(cachedShares[token.id]! * 100)}% input cached
            </div>
          )}
        </Td>
        {/* Last use under the status: one column fewer keeps the row's actions in view at 1280 px. */}
        <Td label="Status">
          <Badge tone={state.tone}>{state.label}</Badge>
          <div className="mt-1 text-xs text-zinc-500 xl:whitespace-nowrap" title={formatDateTime(token.lastUsedAt)}>
            {token.lastUsedAt ? `used ${formatRelative(token.lastUsedAt, now)}` : "never used"}
          </div>
        </Td>
        <Td>
          <RowActions>
            {confirming ? (
              <>
                <Button size="sm" variant="danger" disabled={pending} onClick={() => run(() => deleteTokenAction(token.id))}>
                  Confirm delete
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
                  Keep
                </Button>
              </>
            ) : (
              <>
                <Button size="sm" variant="secondary" onClick={() => onEdit(token)}>
                  Edit
                </Button>
                <Button size="sm" variant="secondary" aria-expanded={showSnippets} onClick={() => setShowSnippets(!showSnippets)}>
                  Use
                </Button>
                <Button size="sm" variant="secondary" disabled={pending} onClick={() => run(() => setTokenEnabledAction(token.id, !token.enabled))}>
                  {token.enabled ? "Disable" : "Enable"}
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setConfirming(true)}>
                  Delete
                </Button>
              </>
            )}
          </RowActions>
          {error && <p className="mt-1 text-xs text-red-600">{error}</p>}
        </Td>
      </tr>
      {showSnippets && (
        <tr>
          <td colSpan={9} className="bg-zinc-50 px-3 py-3 dark:bg-zinc-950">
            {/* No width of its own: long snippet lines scroll inside the panel instead of widening the table. */}
            <div className="w-0 min-w-full">
              <p className="mb-2 text-xs text-zinc-500">Put the key you copied when you created “{token.name}” in place of the placeholder.</p>
              <SnippetTabs baseUrl={baseUrl} apiKey={`${token.keyPrefix}…your-key`} model={token.models[0] ?? fallbackModel} />
            </div>
          </td>
        </tr>
      )}
    </>
  );
}
