"use client";

import { useState } from "react";
import { formatCost, formatNumber } from "@/app/_components/format";
import { useRowAction } from "@/app/_components/use-row-action";
import { RowActions, Table, Td, Th } from "@/app/_components/data-table";
import { Badge, Button, EmptyState } from "@/app/_components/ui";
import type { ChannelJson } from "@/lib/channels/channel-service";
import type { ChannelTestResult } from "@/lib/channels/test-channel";
import { deleteChannelAction, setChannelEnabledAction, testChannelAction } from "./actions";
import { ChannelForm, type TypeInfo } from "./channel-form";
import { ChannelHealth } from "./channel-health";

/** `cachedShare`: the part of the input tokens its upstream served from its prompt cache. */
export type ChannelUsage = { requests: number; costUsd: number; cachedShare: number | null };
type ChannelView = ChannelJson & { usage: ChannelUsage | null };

export function ChannelManager({ channels, types }: { channels: ChannelView[]; types: TypeInfo[] }) {
  const [editing, setEditing] = useState<ChannelJson | "new" | null>(null);
  const [notes, setNotes] = useState<string[]>([]);
  return (
    <div className="space-y-6">
      {editing ? (
        <ChannelForm
          channel={editing === "new" ? null : editing}
          types={types}
          onClose={(saved) => {
            setEditing(null);
            setNotes(saved ?? []);
          }}
        />
      ) : (
        <Button onClick={() => setEditing("new")}>Add channel</Button>
      )}
      {notes.length > 0 && (
        <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
          Saved; base URL {notes.join("; ")}.
        </p>
      )}
      {channels.length === 0 ? (
        <EmptyState title="No channels">Add an upstream to route models to it.</EmptyState>
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>Channel</Th>
              <Th>Models and map</Th>
              <Th>Routing</Th>
              <Th>Health</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          {channels.map((channel) => (
            <ChannelRow key={channel.id} channel={channel} onEdit={() => setEditing(channel)} />
          ))}
        </Table>
      )}
    </div>
  );
}

function ChannelRow({ channel, onEdit }: { channel: ChannelView; onEdit: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [test, setTest] = useState<ChannelTestResult | null>(null);
  const { run, pending, error, startTransition, router } = useRowAction();
  // One body per channel: its row and, after a test, the result across the whole width.
  return (
    <tbody data-testid={`channel-row-${channel.name}`} className="bg-white dark:bg-zinc-900">
      <tr>
        <Td label="Channel" wide data-cell="name" className="xl:w-[22%]">
          <p className="font-medium break-words">
            {channel.name} <Badge tone="indigo">{channel.type}</Badge>
          </p>
          <p className="text-xs break-all text-zinc-500">{channel.baseUrl ?? "default URL"}</p>
          {channel.keys.length > 1 && (
            <p className="text-xs text-zinc-500" data-testid="channel-keys">
              Keys:{" "}
              {channel.keys.map((key, index) => (
                <span key={key.key} title={key.reason ?? undefined} className={key.state === "active" ? undefined : "text-amber-700 dark:text-amber-400"}>
                  {index > 0 && ", "}
                  <span className="font-mono">{key.key}</span>
                  {key.state !== "active" && ` ${key.state}`}
                </span>
              ))}
            </p>
          )}
        </Td>
        <Td label="Models and map" wide data-cell="models" className="text-xs xl:w-[28%]">
          <ModelList channel={channel} />
        </Td>
        <Td label="Routing" data-cell="routing" className="text-xs">
          <p className="xl:whitespace-nowrap">
            Priority {channel.priority} · weight {channel.weight}
          </p>
          <p className="text-zinc-500">
            {channel.usage
              ? `${formatNumber(channel.usage.requests)} ${channel.usage.requests === 1 ? "request" : "requests"} · ${formatCost(channel.usage.costUsd, Object.keys(channel.prices).length > 0)} in 30 days`
              : "No requests in 30 days"}
          </p>
          {channel.usage?.cachedShare != null && (
            <p className="text-zinc-500" data-testid="channel-cached-share" title="Input tokens the upstream served from its prompt cache">
              {Math.round(channel.usage.cachedShare * 100)}% of input cached
            </p>
          )}
        </Td>
        <Td label="Health" wide data-cell="health" className="xl:w-[22%]">
          <ChannelHealth channel={channel} />
        </Td>
        <Td data-cell="actions" className="xl:w-44">
          <RowActions>
            <Button
              size="sm"
              variant="secondary"
              disabled={pending}
              onClick={() =>
                startTransition(async () => {
                  setTest(null);
                  setTest(await testChannelAction(channel.id));
                  router.refresh();
                })
              }
            >
              {pending && !test ? "Testing…" : "Test"}
            </Button>
            <Button size="sm" variant="secondary" onClick={onEdit}>
              Edit
            </Button>
            <Button size="sm" variant="secondary" disabled={pending} onClick={() => run(() => setChannelEnabledAction(channel.id, !channel.enabled))}>
              {channel.enabled ? "Disable" : "Enable"}
            </Button>
            {confirming ? (
              <Button size="sm" variant="danger" onClick={() => run(() => deleteChannelAction(channel.id))}>
                Confirm delete
              </Button>
            ) : (
              <Button size="sm" variant="ghost" onClick={() => setConfirming(true)}>
                Delete
              </Button>
            )}
            {error && <p className="w-full text-xs text-red-600 xl:text-right">{error}</p>}
          </RowActions>
        </Td>
      </tr>
      {test && (
        <tr>
          <td colSpan={5} className="px-3 pb-3">
            {/* No width of its own: long exchanges scroll inside the panel instead of widening the table. */}
            <div className="w-0 min-w-full">
              <TestPanel result={test} onClose={() => setTest(null)} />
            </div>
          </td>
        </tr>
      )}
    </tbody>
  );
}

/** Each public model, its upstream name when mapped, and its price with where it comes from (the channel's own or the catalogue). */
function ModelList({ channel }: { channel: ChannelJson }) {
  return (
    <ul className="space-y-0.5">
      {channel.models.map((model) => {
        const upstream = channel.modelMap[model];
        const priced = channel.modelPrices[model];
        return (
          <li key={model} className="[overflow-wrap:anywhere]">
            <span className="font-mono">{model}</span>
            {upstream && <span className="text-zinc-500"> → {upstream}</span>}
            {priced && (
              <span className="text-zinc-500" title="USD per million tokens, input / output">
                {" "}
                · ${priced.price.input} / ${priced.price.output}{" "}
                <span className="text-xs" data-testid="price-source">
                  ({priced.source})
                </span>
              </span>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function TestPanel({ result, onClose }: { result: ChannelTestResult; onClose: () => void }) {
  return (
    <div role="status" aria-label="Test result" className="space-y-2 rounded-md border border-zinc-200 bg-zinc-50 p-3 text-sm dark:border-zinc-800 dark:bg-zinc-950">
      <div className="flex items-start justify-between gap-2">
        <p className="min-w-0 break-words">
          {result.ok ? <Badge tone="green">Passed</Badge> : <Badge tone="red">Failed</Badge>}{" "}
          <span className="text-zinc-500">
            {result.model} · {result.latencyMs} ms
          </span>
        </p>
        <Button variant="ghost" className="px-2 py-1" aria-label="Close test result" onClick={onClose}>
          ✕
        </Button>
      </div>
      {result.ok ? <p className="break-words">Reply: “{result.reply}”</p> : <p className="break-words text-red-600 dark:text-red-400">{result.error}</p>}
      {result.warnings.length > 0 && <p className="text-amber-700 dark:text-amber-300">Warnings: {result.warnings.join("; ")}</p>}
      {result.exchanges.length > 0 && (
        <details>
          <summary className="cursor-pointer text-zinc-500">Upstream request and response</summary>
          <pre className="mt-2 max-h-80 overflow-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100">{JSON.stringify(result.exchanges, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
