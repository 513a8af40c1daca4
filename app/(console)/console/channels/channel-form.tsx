"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { Button, Card, ErrorNote, Field, Input, Select, Textarea, cx } from "@/app/_components/ui";
import type { ChannelJson } from "@/lib/channels/channel-service";
import { fetchModelsAction, saveChannelAction } from "./actions";
import type { SettingField } from "@/lib/providers/provider";
import { formatModelMap, formatPrices, parseModelMap, parsePrices, splitModels, withModels } from "./channel-fields";
import { UpstreamModelPicker } from "./upstream-model-picker";
import { ChannelSettingsFields, readSettings } from "./channel-settings-fields";

export type TypeInfo = {
  type: string;
  /** The type as people name it ("OpenAI or compatible"). */
  label: string;
  defaultBaseUrl: string;
  baseUrlHelp?: string;
  versionSegment: string | null;
  requiresApiKey: boolean;
  apiKeyHelp: string | null;
  canListModels: boolean;
  settings: SettingField[];
};

/** A refused save or model fetch; `from` says which, so the suggested URL can be tried the same way. */
type Problem = { error: string; suggestion?: string; checkFailed?: boolean; from?: "save" | "fetch" };

/** Adds or edits a channel. Saving sends one test request first; a failure offers the fix or "save anyway". */
export function ChannelForm({ channel, types, onClose }: { channel: ChannelJson | null; types: TypeInfo[]; onClose: (notes?: string[]) => void }) {
  const router = useRouter();
  const [type, setType] = useState(channel?.type ?? "openai");
  const [baseUrl, setBaseUrl] = useState(channel?.baseUrl ?? "");
  const [models, setModels] = useState(channel?.models.join(", ") ?? "");
  const [problem, setProblem] = useState<Problem | null>(null);
  const [upstreamModels, setUpstreamModels] = useState<string[] | null>(null);
  const [pending, startTransition] = useTransition();
  const [fetching, startFetching] = useTransition();
  const info = types.find((candidate) => candidate.type === type);

  /** The form's fields as the channel API takes them; an unreadable price line is an error. */
  function readForm(form: HTMLFormElement): Record<string, unknown> | { error: string } {
    const data = new FormData(form);
    const prices = parsePrices(String(data.get("prices") ?? ""));
    if ("error" in prices) return prices;
    const input: Record<string, unknown> = {
      name: String(data.get("name") ?? ""),
      type,
      baseUrl: baseUrl.trim() || null,
      models: splitModels(models),
      modelMap: parseModelMap(String(data.get("modelMap") ?? "")),
      priority: Number(data.get("priority") ?? 0),
      weight: Number(data.get("weight") ?? 1),
      prices: prices.prices,
    };
    // An empty key field on edit keeps the stored keys; one key per line makes a pool.
    const keys = splitKeys(String(data.get("apiKey") ?? ""));
    if (keys.length === 1) input.apiKey = keys[0];
    else if (keys.length > 1) input.apiKeys = keys;
    if (info?.settings.length) input.settings = readSettings(data);
    return input;
  }

  function save(form: HTMLFormElement, check: boolean) {
    const input = readForm(form);
    if ("error" in input) return setProblem({ error: String(input.error) });
    setProblem(null);
    startTransition(async () => {
      const result = await saveChannelAction(channel?.id ?? null, input, { check });
      if (!result.ok) return setProblem({ ...result, from: "save" });
      onClose(result.notes);
      router.refresh();
    });
  }

  /** Lists the upstream's models; `baseUrlOverride` is a URL just chosen, not yet in the form's state. */
  function fetchModels(form: HTMLFormElement, baseUrlOverride?: string) {
    const input = readForm(form);
    if ("error" in input) return setProblem({ error: String(input.error) });
    if (baseUrlOverride) input.baseUrl = baseUrlOverride;
    startFetching(async () => {
      const { name: _name, models: _models, ...rest } = input;
      const result = await fetchModelsAction(channel?.id ?? null, rest);
      if (!result.ok) return setProblem({ error: result.error, suggestion: result.suggestion, from: "fetch" });
      setProblem(null);
      setUpstreamModels(result.models);
    });
  }

  const chosen = new Set(splitModels(models));

  return (
    <Card>
      <form
        onSubmit={(event: FormEvent<HTMLFormElement>) => {
          event.preventDefault();
          save(event.currentTarget, true);
        }}
        className="space-y-4"
        aria-label={channel ? "Edit channel" : "Add channel"}
      >
        <h2 className="text-base font-semibold">{channel ? `Edit ${channel.name}` : "New channel"}</h2>
        <div className="grid gap-4 md:grid-cols-2">
          <Field label="Name" htmlFor="channel-name">
            <Input id="channel-name" name="name" required defaultValue={channel?.name} />
          </Field>
          <Field label="Type" htmlFor="channel-type">
            <Select id="channel-type" value={type} onChange={(event) => setType(event.target.value)}>
              {types.map((candidate) => (
                <option key={candidate.type} value={candidate.type}>
                  {candidate.label}
                </option>
              ))}
            </Select>
          </Field>
          <Field
            label="Base URL"
            htmlFor="channel-url"
            hint={
              info?.baseUrlHelp ??
              (info?.defaultBaseUrl
                ? `Empty means ${info.defaultBaseUrl}.${info.versionSegment ? ` Include the version segment (…${info.versionSegment}).` : ""}`
                : "Not used by this type.")
            }
          >
            <Input id="channel-url" name="baseUrl" type="url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} placeholder={info?.defaultBaseUrl} />
            {/* The fix sits by the field it fixes; a fetch that failed is tried again with it. */}
            {problem?.suggestion && (
              <div className="flex flex-wrap items-center gap-2 text-xs text-amber-700 dark:text-amber-400" data-testid="base-url-suggestion">
                <span>Did you mean this?</span>
                <Button
                  type="button"
                  variant="secondary"
                  className="max-w-full break-all text-left"
                  onClick={(event) => {
                    const suggestion = problem.suggestion!;
                    setBaseUrl(suggestion);
                    setProblem(null);
                    if (problem.from === "fetch" || upstreamModels) fetchModels(event.currentTarget.form!, suggestion);
                  }}
                >
                  Use {problem.suggestion}
                </Button>
              </div>
            )}
          </Field>
          <Field
            label="API key"
            htmlFor="channel-key"
            hint={
              channel?.hasApiKey
                ? `${info?.apiKeyHelp ? `${info.apiKeyHelp} ` : ""}Stored encrypted${channel.keys.length > 1 ? ` (${channel.keys.length} keys: ${channel.keys.map((key) => key.key).join(", ")})` : ""}. Leave empty to keep ${channel.keys.length > 1 ? "them" : "it"}; several keys, one per line, make a pool requests spread over.`
                : `${info?.apiKeyHelp ?? (info?.requiresApiKey ? "Required." : "Optional.")} Several keys, one per line, make a pool requests spread over.`
            }
          >
            <Textarea id="channel-key" name="apiKey" rows={2} autoComplete="off" spellCheck={false} className="font-mono text-xs [-webkit-text-security:disc]" />
          </Field>
          <ChannelSettingsFields
            key={type}
            fields={info?.settings ?? []}
            values={channel?.type === type ? channel.settings : {}}
            secretsSet={channel?.type === type ? channel.secretsSet : []}
          />
          {/* The fetched list needs the form's whole width. */}
          <div className={cx("space-y-2", upstreamModels && "md:col-span-2")}>
            <Field label="Models" htmlFor="channel-models" hint="Public model names, separated by spaces or commas.">
              <Textarea id="channel-models" name="models" rows={2} required value={models} onChange={(event) => setModels(event.target.value)} />
            </Field>
            {info?.canListModels && (
              <Button type="button" variant="secondary" disabled={fetching} onClick={(event) => fetchModels(event.currentTarget.form!)}>
                {fetching ? "Fetching…" : "Fetch models from the upstream"}
              </Button>
            )}
            {upstreamModels && (
              <UpstreamModelPicker
                models={upstreamModels}
                chosen={chosen}
                onChange={(names, checked) => setModels(withModels(splitModels(models), names, checked).join(", "))}
                onClose={() => setUpstreamModels(null)}
              />
            )}
          </div>
          <Field
            label="Model map"
            htmlFor="channel-map"
            hint="One per line: public name = upstream name. Answers carry the name the upstream reports (as OpenAI's own dated names do); logs keep both."
          >
            <Textarea id="channel-map" name="modelMap" rows={2} defaultValue={formatModelMap(channel?.modelMap ?? {})} />
          </Field>
          <Field label="Priority" htmlFor="channel-priority" hint="Higher is tried first.">
            <Input id="channel-priority" name="priority" type="number" step={1} defaultValue={channel?.priority ?? 0} />
          </Field>
          <Field label="Weight" htmlFor="channel-weight" hint="Share of traffic within a priority.">
            <Input id="channel-weight" name="weight" type="number" min={0} step={1} defaultValue={channel?.weight ?? 1} />
          </Field>
          <div className="md:col-span-2">
            <Field
              label="Prices"
              htmlFor="channel-prices"
              hint="USD per million tokens, one model per line: model = input / output [/ cached input [/ cache write]]; * prices every other model. Models left out are priced from the model catalogue when it knows them."
            >
              <Textarea id="channel-prices" name="prices" rows={2} placeholder="gpt-4o-mini = 0.15 / 0.6 / 0.075" defaultValue={formatPrices(channel?.prices ?? {})} />
            </Field>
          </div>
        </div>
        {problem && (
          <div className="space-y-2">
            <ErrorNote>{problem.error}</ErrorNote>
            {/* Not offered for a loop: the save refuses a channel that leads back here anyway. */}
            {problem.checkFailed && (
              <Button type="button" variant="ghost" disabled={pending} onClick={(event) => save(event.currentTarget.form!, false)}>
                Save without the check
              </Button>
            )}
          </div>
        )}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={pending}>
            {pending ? "Checking and saving…" : "Save channel"}
          </Button>
          <Button type="button" variant="ghost" onClick={() => onClose()}>
            Cancel
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** The key field: one key per line (a pool), or one JSON credential written over several lines. */
function splitKeys(text: string): string[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  if (trimmed.startsWith("{")) return [trimmed];
  return [
    ...new Set(
      trimmed
        .split(/\r?\n/)
        .map((line) => line.trim())
        .filter(Boolean),
    ),
  ];
}
