"use client";

import Form from "next/form";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/app/_components/ui";
import { RANGE_PRESETS, type RangeKey } from "./dashboard-range";

const SEGMENT = "px-3 py-1.5 text-sm font-medium whitespace-nowrap focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-indigo-500";
const ACTIVE = "bg-indigo-600 text-white";
const IDLE = "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800";
const DATE_FIELD =
  "rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm text-zinc-900 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500/30 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:[color-scheme:dark]";

/**
 * The Dashboard's date range: presets are links (`?range=7d`), a custom range a GET form of
 * two UTC dates (`?from=&to=`), so the range lives in the URL and works without scripts.
 */
export function RangePicker({ current, from, to, today, team }: { current: RangeKey; from: string; to: string; today: string; team?: string }) {
  // The team filter stays as the range changes.
  const teamQuery = team ? `&team=${encodeURIComponent(team)}` : "";
  const [customOpen, setCustomOpen] = useState(current === "custom");
  return (
    <div className="flex flex-col gap-2 sm:items-end">
      <nav
        aria-label="Date range"
        className="inline-flex w-fit divide-x divide-zinc-300 overflow-hidden rounded-md border border-zinc-300 bg-white dark:divide-zinc-700 dark:border-zinc-700 dark:bg-zinc-900"
      >
        {RANGE_PRESETS.map((preset) => (
          <Link
            key={preset.key}
            href={`/console?range=${preset.key}${teamQuery}`}
            aria-current={current === preset.key ? "page" : undefined}
            aria-label={preset.title}
            className={`${SEGMENT} ${current === preset.key ? ACTIVE : IDLE}`}
          >
            {preset.label}
          </Link>
        ))}
        <button type="button" aria-expanded={customOpen} onClick={() => setCustomOpen(!customOpen)} className={`${SEGMENT} ${current === "custom" ? ACTIVE : IDLE}`}>
          Custom
        </button>
      </nav>
      {customOpen && (
        <Form action="/console" aria-label="Custom date range" className="flex flex-wrap items-end gap-2">
          {team && <input type="hidden" name="team" value={team} />}
          <label className="flex flex-col text-xs text-zinc-500">
            From
            <input type="date" name="from" defaultValue={from} max={today} required className={DATE_FIELD} />
          </label>
          <label className="flex flex-col text-xs text-zinc-500">
            To (UTC, included)
            <input type="date" name="to" defaultValue={to} max={today} required className={DATE_FIELD} />
          </label>
          <Button type="submit" size="sm" className="py-1.5">
            Show
          </Button>
        </Form>
      )}
    </div>
  );
}
