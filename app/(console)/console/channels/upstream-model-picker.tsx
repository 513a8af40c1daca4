"use client";

import { useState } from "react";
import { Button, Input } from "@/app/_components/ui";
import { filterModels } from "./channel-fields";

/**
 * The upstream's models to tick, right under the button that fetched them. A filter box
 * and "select all/none" (of what the filter shows) keep a list of hundreds usable.
 */
export function UpstreamModelPicker({
  models,
  chosen,
  onChange,
  onClose,
}: {
  models: string[];
  chosen: Set<string>;
  onChange: (models: string[], checked: boolean) => void;
  onClose: () => void;
}) {
  const [filter, setFilter] = useState("");
  const shown = filterModels(models, filter);
  const picked = models.filter((model) => chosen.has(model)).length;
  return (
    <fieldset className="rounded-md border border-zinc-200 p-3 dark:border-zinc-800" aria-label="Upstream models">
      <legend className="px-1 text-sm font-medium">
        {models.length} models at the upstream, {picked} chosen
      </legend>
      <div className="flex flex-wrap items-center gap-2">
        <Input
          type="search"
          className="min-w-0 flex-1 basis-40"
          placeholder="Filter, e.g. gpt 4o"
          aria-label="Filter upstream models"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
        <Button type="button" size="sm" variant="secondary" disabled={shown.length === 0} onClick={() => onChange(shown, true)}>
          {filter ? `Select ${shown.length} shown` : "Select all"}
        </Button>
        <Button type="button" size="sm" variant="secondary" disabled={shown.length === 0} onClick={() => onChange(shown, false)}>
          {filter ? "Clear shown" : "Select none"}
        </Button>
        <Button type="button" size="sm" variant="ghost" onClick={onClose}>
          Hide list
        </Button>
      </div>
      <div className="mt-2 grid max-h-64 gap-1 overflow-y-auto sm:grid-cols-2">
        {shown.map((model) => (
          <label key={model} className="flex min-w-0 items-center gap-2 text-sm">
            <input type="checkbox" checked={chosen.has(model)} onChange={(event) => onChange([model], event.target.checked)} />
            <span className="truncate font-mono text-xs" title={model}>
              {model}
            </span>
          </label>
        ))}
        {shown.length === 0 && <p className="text-xs text-zinc-500">No model matches “{filter}”.</p>}
      </div>
    </fieldset>
  );
}
