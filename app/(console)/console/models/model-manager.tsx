"use client";

import { useState } from "react";
import { formatNumber, formatUsd } from "@/app/_components/format";
import { RowActions, Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { useRowAction } from "@/app/_components/use-row-action";
import { Badge, Button, DoneNote, EmptyState } from "@/app/_components/ui";
import type { ModelChannelJson, ModelJson } from "@/lib/models/model-service";
import { deleteModelAction } from "./actions";
import { ModelForm } from "./model-form";

type Editing = { kind: "new" } | { kind: "edit"; model: ModelJson } | null;

/** A model's last 7 days, from the hourly rollups. */
export type ModelUsage = { requests: number; errors: number; costUsd: number; latencyP50: number | null };

export function ModelManager({ models, strategies, usage = {} }: { models: ModelJson[]; strategies: string[]; usage?: Record<string, ModelUsage> }) {
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const names = models.map((model) => model.name);
  return (
    <div className="space-y-6">
      {editing ? (
        <ModelForm
          key={editing.kind === "edit" ? editing.model.name : "new"}
          model={editing.kind === "edit" ? editing.model : null}
          names={names}
          strategies={strategies}
          onCancel={() => setEditing(null)}
          onSaved={(name) => {
            setSaved(name);
            setEditing(null);
          }}
        />
      ) : (
        <Button onClick={() => setEditing({ kind: "new" })}>Add model</Button>
      )}
      {saved && <DoneNote>Saved “{saved}”: the API routes by it from the next request.</DoneNote>}
      {models.length === 0 ? (
        <EmptyState title="No models yet">Models appear here once a channel lists them, or add a record first.</EmptyState>
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Channels</Th>
              <Th>Strategy</Th>
              <Th>Fallbacks</Th>
              <Th className="text-right">Context window</Th>
              <Th>Price per million tokens</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {models.map((model) => (
              <ModelRow
                key={model.name}
                model={model}
                usage={usage[model.name] ?? null}
                onEdit={() => {
                  setSaved(null);
                  setEditing({ kind: "edit", model });
                }}
              />
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}

function ModelRow({ model, usage, onEdit }: { model: ModelJson; usage: ModelUsage | null; onEdit: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const { run, pending, error } = useRowAction();
  const priced = model.channels.filter((channel) => channel.price);
  return (
    <tr data-testid={`model-row-${model.name}`}>
      <Td label="Name" wide className="font-medium">
        <Truncate text={model.name} className="xl:max-w-[14rem]" />
        {!model.id && <div className="text-xs font-normal text-zinc-400">no record</div>}
        <div className="text-xs font-normal text-zinc-500" data-testid="model-usage" title="Served requests in the last 7 days, their median latency and cost">
          {usage
            ? `${formatNumber(usage.requests)} ${usage.requests === 1 ? "request" : "requests"}${usage.errors ? ` (${((usage.errors / usage.requests) * 100).toFixed(1)}% errors)` : ""}${usage.latencyP50 === null ? "" : ` · p50 ${formatNumber(usage.latencyP50)} ms`} · ${formatUsd(usage.costUsd)} in 7 days`
            : "No requests in 7 days"}
        </div>
      </Td>
      <Td label="Channels" wide className="text-xs">
        {model.channels.length ? model.channels.map((channel) => <ChannelLine key={channel.id} channel={channel} />) : <span className="text-amber-700">none serves it</span>}
      </Td>
      <Td label="Strategy" data-testid="model-strategy">
        <Badge tone={model.strategy === "weighted" ? "zinc" : "indigo"}>{model.strategy}</Badge>
      </Td>
      <Td label="Fallbacks" wide className="text-xs" data-testid="model-fallbacks">
        {model.fallbacks.length ? <Truncate text={model.fallbacks.join(" → ")} className="xl:max-w-[14rem]" /> : <span className="text-zinc-400">none</span>}
      </Td>
      <Td label="Context window" className="tabular-nums xl:text-right" data-testid="model-context-window">
        {model.contextWindow ? (
          formatNumber(model.contextWindow)
        ) : model.catalogueContextWindow ? (
          <span title="from the model catalogue; a record's own value overrides it">
            {formatNumber(model.catalogueContextWindow)}
            <span className="text-zinc-400"> (catalogue)</span>
          </span>
        ) : (
          <span className="text-zinc-400">—</span>
        )}
      </Td>
      <Td label="Price" wide className="text-xs">
        {priced.length ? (
          priced.map((channel) => (
            <div key={channel.id} title={channel.priceSource === "catalogue" ? `from the model catalogue, on channel ${channel.name}` : `set on channel ${channel.name}`}>
              {formatUsd(channel.price!.input)} in · {formatUsd(channel.price!.output)} out
              <span className="text-zinc-400">
                {" "}
                ({channel.name}
                {channel.priceSource === "catalogue" ? ", catalogue" : ""})
              </span>
            </div>
          ))
        ) : (
          <span className="text-zinc-400">no price</span>
        )}
      </Td>
      <Td>
        <RowActions>
          {confirming && model.id ? (
            <>
              <Button size="sm" variant="danger" disabled={pending} onClick={() => run(() => deleteModelAction(model.id!))}>
                Confirm remove
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setConfirming(false)}>
                Keep
              </Button>
            </>
          ) : (
            <>
              <Button size="sm" variant="secondary" onClick={onEdit}>
                Edit
              </Button>
              {model.id && (
                <Button size="sm" variant="ghost" onClick={() => setConfirming(true)}>
                  Remove record
                </Button>
              )}
            </>
          )}
        </RowActions>
        {error && <p className="mt-1 text-xs text-red-600">{error}</p>}
      </Td>
    </tr>
  );
}

function ChannelLine({ channel }: { channel: ModelChannelJson }) {
  return (
    <div className={channel.enabled ? undefined : "text-zinc-400 line-through"} title={channel.upstreamModel ? `sent upstream as ${channel.upstreamModel}` : undefined}>
      {channel.name}{" "}
      <span className="text-zinc-400">
        ({channel.type}, priority {channel.priority}, weight {channel.weight})
      </span>
    </div>
  );
}
