"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { useRowAction } from "@/app/_components/use-row-action";
import { Badge, Button, Card, EmptyState, ErrorNote, Field, Input, Select, Table, Td, Th, Textarea } from "@/app/_components/ui";
import type { ChannelJson } from "@/lib/channels/channel-service";
import type { ChannelTestResult } from "@/lib/channels/test-channel";
import { deleteChannelAction, saveChannelAction, setChannelEnabledAction, testChannelAction } from "./actions";

type TypeInfo = { type: string; defaultBaseUrl: string; requiresApiKey: boolean };

export function ChannelManager({ channels, types }: { channels: ChannelJson[]; types: TypeInfo[] }) {
  const [editing, setEditing] = useState<ChannelJson | "new" | null>(null);
  return (
    <div className="space-y-6">
      {editing ? (
        <ChannelForm channel={editing === "new" ? null : editing} types={types} onClose={() => setEditing(null)} />
      ) : (
        <Button onClick={() => setEditing("new")}>Add channel</Button>
      )}
      {channels.length === 0 ? (
        <EmptyState title="No channels">Add an upstream to route models to it.</EmptyState>
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>Name</Th>
              <Th>Type</Th>
              <Th>Models</Th>
              <Th>Priority / weight</Th>
              <Th>Health</Th>
              <Th>
                <span className="sr-only">Actions</span>
              </Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {channels.map((channel) => (
              <ChannelRow key={channel.id} channel={channel} onEdit={() => setEditing(channel)} />
            ))}
          </tbody>
        </Table>
      )}
    </div>
  );
}

function Health({ channel }: { channel: ChannelJson }) {
  if (!channel.enabled) return <Badge tone="zinc">Disabled</Badge>;
  if (channel.autoDisabledReason) {
    return (
      <div className="max-w-xs whitespace-normal" data-testid="channel-auto-disabled">
        <Badge tone="red">Disabled automatically</Badge>
        <p className="mt-1 text-xs text-red-600 dark:text-red-400">{channel.autoDisabledReason}</p>
        <p className="mt-1 text-xs text-zinc-500">Retried on a schedule; saving a new key re-enables it now.</p>
      </div>
    );
  }
  if (channel.state && channel.state.circuit !== "closed") {
    return (
      <div className="max-w-xs whitespace-normal" data-testid="channel-circuit">
        <Badge tone="amber">Circuit {channel.state.circuit}</Badge>
        {channel.state.reason && <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">{channel.state.reason}</p>}
      </div>
    );
  }
  const cooling = Object.entries(channel.state?.models ?? {}).filter(([, model]) => model.circuit !== "closed" || model.coolDownUntil);
  if (cooling.length > 0) {
    return (
      <div className="max-w-xs whitespace-normal">
        <Badge tone="amber">{cooling.length === 1 ? `${cooling[0]![0]} paused` : `${cooling.length} models paused`}</Badge>
        <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">{cooling[0]![1].reason}</p>
      </div>
    );
  }
  if (channel.lastError) {
    return (
      <div className="max-w-xs whitespace-normal">
        <Badge tone="red">Failing</Badge>
        <p className="mt-1 text-xs text-red-600 dark:text-red-400">{channel.lastError}</p>
      </div>
    );
  }
  if (channel.lastLatencyMs !== null) return <Badge tone="green">OK · {channel.lastLatencyMs} ms</Badge>;
  return <Badge tone="zinc">Not used yet</Badge>;
}

function ChannelRow({ channel, onEdit }: { channel: ChannelJson; onEdit: () => void }) {
  const [confirming, setConfirming] = useState(false);
  const [test, setTest] = useState<ChannelTestResult | null>(null);
  const { run, pending, error, startTransition, router } = useRowAction();
  return (
    <>
      <tr data-testid={`channel-row-${channel.name}`}>
        <Td className="font-medium">
          {channel.name}
          <div className="text-xs font-normal text-zinc-500">{channel.baseUrl ?? "default URL"}</div>
        </Td>
        <Td>
          <Badge tone="indigo">{channel.type}</Badge>
        </Td>
        <Td className="max-w-64 whitespace-normal text-xs">{channel.models.join(", ")}</Td>
        <Td>
          {channel.priority} / {channel.weight}
        </Td>
        <Td>
          <Health channel={channel} />
        </Td>
        <Td>
          <div className="flex justify-end gap-1">
            <Button
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
            <Button variant="secondary" onClick={onEdit}>
              Edit
            </Button>
            <Button variant="ghost" disabled={pending} onClick={() => run(() => setChannelEnabledAction(channel.id, !channel.enabled))}>
              {channel.enabled ? "Disable" : "Enable"}
            </Button>
            {confirming ? (
              <Button variant="danger" onClick={() => run(() => deleteChannelAction(channel.id))}>
                Confirm delete
              </Button>
            ) : (
              <Button variant="ghost" onClick={() => setConfirming(true)}>
                Delete
              </Button>
            )}
          </div>
          {error && <p className="mt-1 text-right text-xs text-red-600">{error}</p>}
        </Td>
      </tr>
      {test && (
        <tr>
          <td colSpan={6} className="bg-zinc-50 px-3 py-3 dark:bg-zinc-950">
            <TestResult result={test} />
          </td>
        </tr>
      )}
    </>
  );
}

function TestResult({ result }: { result: ChannelTestResult }) {
  return (
    <div role="status" className="space-y-2 text-sm">
      <p>
        {result.ok ? <Badge tone="green">Passed</Badge> : <Badge tone="red">Failed</Badge>}{" "}
        <span className="text-zinc-500">
          {result.model} · {result.latencyMs} ms
        </span>
      </p>
      {result.ok ? <p>Reply: “{result.reply}”</p> : <p className="text-red-600 dark:text-red-400">{result.error}</p>}
      {result.warnings.length > 0 && <p className="text-amber-700 dark:text-amber-300">Warnings: {result.warnings.join("; ")}</p>}
      {result.exchanges.length > 0 && (
        <details>
          <summary className="cursor-pointer text-zinc-500">Upstream request and response</summary>
          <pre className="mt-2 max-h-80 overflow-auto rounded-md bg-zinc-950 p-3 text-xs text-zinc-100">
            {JSON.stringify(result.exchanges, null, 2)}
          </pre>
        </details>
      )}
    </div>
  );
}

function parseModelMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const [from, to] = line.split("=").map((part) => part.trim());
    if (from && to) map[from] = to;
  }
  return map;
}

function ChannelForm({ channel, types, onClose }: { channel: ChannelJson | null; types: TypeInfo[]; onClose: () => void }) {
  const router = useRouter();
  const [type, setType] = useState(channel?.type ?? "openai");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const info = types.find((candidate) => candidate.type === type);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const apiKey = String(form.get("apiKey") ?? "");
    const baseUrl = String(form.get("baseUrl") ?? "").trim();
    const input: Record<string, unknown> = {
      name: String(form.get("name") ?? ""),
      type,
      baseUrl: baseUrl || null,
      models: String(form.get("models") ?? "")
        .split(/[\s,]+/)
        .filter(Boolean),
      modelMap: parseModelMap(String(form.get("modelMap") ?? "")),
      priority: Number(form.get("priority") ?? 0),
      weight: Number(form.get("weight") ?? 1),
    };
    // An empty key field on edit keeps the stored key.
    if (apiKey) input.apiKey = apiKey;
    startTransition(async () => {
      const result = await saveChannelAction(channel?.id ?? null, input);
      if (!result.ok) return setError(result.error);
      onClose();
      router.refresh();
    });
  }

  return (
    <Card>
      <form onSubmit={submit} className="space-y-4" aria-label={channel ? "Edit channel" : "Add channel"}>
        <h2 className="text-base font-semibold">{channel ? `Edit ${channel.name}` : "New channel"}</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="Name" htmlFor="channel-name">
            <Input id="channel-name" name="name" required defaultValue={channel?.name} />
          </Field>
          <Field label="Type" htmlFor="channel-type">
            <Select id="channel-type" value={type} onChange={(event) => setType(event.target.value)}>
              {types.map((candidate) => (
                <option key={candidate.type} value={candidate.type}>
                  {candidate.type}
                </option>
              ))}
            </Select>
          </Field>
          <Field label="Base URL" htmlFor="channel-url" hint={info?.defaultBaseUrl ? `Default: ${info.defaultBaseUrl}` : undefined}>
            <Input id="channel-url" name="baseUrl" type="url" defaultValue={channel?.baseUrl ?? ""} placeholder={info?.defaultBaseUrl} />
          </Field>
          <Field label="API key" htmlFor="channel-key" hint={channel?.hasApiKey ? "Stored encrypted. Leave empty to keep it." : info?.requiresApiKey ? "Required." : "Optional."}>
            <Input id="channel-key" name="apiKey" type="password" autoComplete="off" />
          </Field>
          <Field label="Models" htmlFor="channel-models" hint="Public model names, separated by spaces or commas.">
            <Textarea id="channel-models" name="models" rows={2} required defaultValue={channel?.models.join(", ")} />
          </Field>
          <Field label="Model map" htmlFor="channel-map" hint="One per line: public = upstream name.">
            <Textarea
              id="channel-map"
              name="modelMap"
              rows={2}
              defaultValue={Object.entries(channel?.modelMap ?? {})
                .map(([from, to]) => `${from} = ${to}`)
                .join("\n")}
            />
          </Field>
          <Field label="Priority" htmlFor="channel-priority" hint="Higher is tried first.">
            <Input id="channel-priority" name="priority" type="number" step={1} defaultValue={channel?.priority ?? 0} />
          </Field>
          <Field label="Weight" htmlFor="channel-weight" hint="Share of traffic within a priority.">
            <Input id="channel-weight" name="weight" type="number" min={0} step={1} defaultValue={channel?.weight ?? 1} />
          </Field>
        </div>
        {error && <ErrorNote>{error}</ErrorNote>}
        <div className="flex gap-2">
          <Button type="submit" disabled={pending}>
            {pending ? "Saving…" : "Save channel"}
          </Button>
          <Button type="button" variant="ghost" onClick={onClose}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}
