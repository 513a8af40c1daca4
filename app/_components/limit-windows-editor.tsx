"use client";

import { type ReactNode, useState } from "react";
import type { LimitWindow } from "@/lib/limits/limit-windows";
import { Button, Input } from "./ui";

/** A window's use as the admin API reports it (lib/limits/window-charges.ts). */
export interface WindowUse {
  window: string;
  used: { tokens: number; usd: number; requests: number };
  resetsAt: string | null;
}

type Row = { window: string; tokens: string; usd: string; requests: string; models: string };

const toRow = (window: LimitWindow): Row => ({
  window: window.window,
  tokens: window.tokens?.toString() ?? "",
  usd: window.usd?.toString() ?? "",
  requests: window.requests?.toString() ?? "",
  models: window.models?.join(", ") ?? "",
});

/** The rows as the API takes them; the server validates (a clear error names the field). */
function toWindows(rows: Row[]): unknown[] {
  const number = (text: string) => (text.trim() === "" ? undefined : Number(text));
  return rows.map((row) => {
    const models = row.models
      .split(",")
      .map((model) => model.trim())
      .filter(Boolean);
    return { window: row.window.trim(), tokens: number(row.tokens), usd: number(row.usd), requests: number(row.requests), models: models.length ? models : undefined };
  });
}

/** The words of each field the editor fills: a form with both keeps their rows and buttons apart. */
const FIELDS = {
  limits: { legend: "Limit windows", row: "Window", add: "Add window" },
  endUserLimits: { legend: "End-user limits", row: "End-user window", add: "Add end-user window" },
} as const;

/**
 * Edits a token's or user's limit windows, one row each, and shows each saved window's use
 * as a bar. The form reads the windows as JSON from the hidden field named `field`.
 */
export function LimitWindowsEditor({
  windows,
  usage,
  idPrefix,
  field = "limits",
  help,
}: {
  windows: LimitWindow[];
  usage?: WindowUse[];
  idPrefix: string;
  field?: keyof typeof FIELDS;
  /** What these windows bind, in place of the hints on spans and models (a form's first editor gives those). */
  help?: ReactNode;
}) {
  const words = FIELDS[field];
  const [rows, setRows] = useState<Row[]>(windows.map(toRow));
  const change = (index: number, field: keyof Row, value: string) => setRows(rows.map((row, at) => (at === index ? { ...row, [field]: value } : row)));
  const cell = "text-xs text-zinc-500";
  return (
    <fieldset data-testid={`${idPrefix}-windows`}>
      <legend className="text-sm font-medium text-zinc-700 dark:text-zinc-300">{words.legend}</legend>
      <p className="mb-2 text-xs text-zinc-500">
        {help ?? (
          <>
            All apply at once. A duration (90m, 5h, 7d) opens at the first request and resets when it has run out; day, week (from Monday) and month are calendar periods in UTC.
            Models: comma-separated, empty for every model.
          </>
        )}
      </p>
      <input type="hidden" name={field} value={JSON.stringify(toWindows(rows))} />
      <datalist id={`${idPrefix}-window-spans`}>
        {["5h", "1d", "7d", "day", "week", "month"].map((span) => (
          <option key={span} value={span} />
        ))}
      </datalist>
      <div className="space-y-3">
        {rows.map((row, index) => {
          const saved = usage?.[index];
          return (
            // biome-ignore lint/a11y/useSemanticElements: a row of the editor's grid, named for screen readers; a fieldset would bring its own layout
            <div key={index} role="group" className="space-y-1 rounded-md border border-zinc-200 p-2 dark:border-zinc-800" aria-label={`${words.row} ${index + 1}`}>
              <div className="grid gap-2 sm:grid-cols-6">
                <label className={cell}>
                  Window
                  <Input list={`${idPrefix}-window-spans`} value={row.window} required placeholder="5h" onChange={(event) => change(index, "window", event.target.value)} />
                </label>
                <label className={cell}>
                  Tokens
                  <Input type="number" min={0} step={1} value={row.tokens} onChange={(event) => change(index, "tokens", event.target.value)} />
                </label>
                <label className={cell}>
                  USD
                  <Input type="number" min={0} step="any" value={row.usd} onChange={(event) => change(index, "usd", event.target.value)} />
                </label>
                <label className={cell}>
                  Requests
                  <Input type="number" min={0} step={1} value={row.requests} onChange={(event) => change(index, "requests", event.target.value)} />
                </label>
                <label className={cell}>
                  Models
                  <Input value={row.models} placeholder="every model" onChange={(event) => change(index, "models", event.target.value)} />
                </label>
                <div className="flex items-end">
                  <Button type="button" variant="ghost" size="sm" onClick={() => setRows(rows.filter((_, at) => at !== index))}>
                    Remove
                  </Button>
                </div>
              </div>
              {saved && saved.window === row.window && <WindowBars use={saved} row={row} />}
            </div>
          );
        })}
      </div>
      <Button type="button" variant="secondary" size="sm" className="mt-2" onClick={() => setRows([...rows, { window: "5h", tokens: "", usd: "", requests: "", models: "" }])}>
        {words.add}
      </Button>
    </fieldset>
  );
}

/** One bar per limited unit: used of the limit, and when the window resets. */
function WindowBars({ use, row }: { use: WindowUse; row: Row }) {
  const units = (["tokens", "usd", "requests"] as const).filter((unit) => row[unit].trim() !== "");
  return (
    <div className="space-y-1">
      {units.map((unit) => {
        const limit = Number(row[unit]);
        const used = use.used[unit];
        const share = limit > 0 ? Math.min(1, used / limit) : 1;
        const shown = unit === "usd" ? `$${used.toFixed(4)} of $${limit}` : `${used.toLocaleString()} of ${limit.toLocaleString()} ${unit}`;
        return (
          <div key={unit} className="flex items-center gap-2 text-xs text-zinc-500">
            {/* biome-ignore lint/a11y/useSemanticElements: a styled bar; <meter> cannot be styled the same across browsers */}
            <div
              role="meter"
              aria-label={`${use.window} ${unit}`}
              aria-valuemin={0}
              aria-valuemax={limit}
              aria-valuenow={used}
              className="h-2 w-40 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
            >
              <div className={share >= 1 ? "h-full bg-red-500" : "h-full bg-indigo-500"} style={{ width: `${Math.round(share * 100)}%` }} />
            </div>
            <span className="tabular-nums">{shown}</span>
          </div>
        );
      })}
      <p className="text-xs text-zinc-500">{use.resetsAt ? `Resets ${use.resetsAt.slice(0, 16).replace("T", " ")} UTC` : "Opens with the next request"}</p>
    </div>
  );
}
