import type { WindowUse } from "@/app/_components/limit-windows-editor";
import type { LimitWindow } from "@/lib/limits/limit-windows";

/** A window's limits and use as bars (read-only): the team's budget, a member's cap. */
export function WindowBars({ windows, label }: { windows: (LimitWindow & WindowUse)[]; label: string }) {
  if (windows.length === 0) return <span className="text-xs text-zinc-500">No limit</span>;
  return (
    <div className="space-y-2">
      {windows.map((window, index) => (
        <div key={`${window.window}-${index}`} className="space-y-1">
          {(["usd", "tokens", "requests"] as const)
            .filter((unit) => window[unit] !== undefined)
            .map((unit) => {
              const limit = window[unit]!;
              const used = window.used[unit];
              const share = limit > 0 ? Math.min(1, used / limit) : 1;
              const shown = unit === "usd" ? `$${used.toFixed(2)} of $${limit}` : `${used.toLocaleString()} of ${limit.toLocaleString()} ${unit}`;
              return (
                <div key={unit} className="flex flex-wrap items-center gap-x-2 text-xs text-zinc-500">
                  {/* biome-ignore lint/a11y/useSemanticElements: a styled bar; <meter> cannot be styled the same across browsers */}
                  <div
                    role="meter"
                    aria-label={`${label} ${window.window} ${unit}`}
                    aria-valuemin={0}
                    aria-valuemax={limit}
                    aria-valuenow={used}
                    className="h-2 w-28 overflow-hidden rounded bg-zinc-200 dark:bg-zinc-800"
                  >
                    <div className={share >= 1 ? "h-full bg-red-500" : "h-full bg-indigo-500"} style={{ width: `${Math.round(share * 100)}%` }} />
                  </div>
                  <span className="tabular-nums">
                    {shown} · {window.window}
                  </span>
                </div>
              );
            })}
          <p className="text-xs text-zinc-500">{window.resetsAt ? `Resets ${window.resetsAt.slice(0, 16).replace("T", " ")} UTC` : "Opens with the next request"}</p>
        </div>
      ))}
    </div>
  );
}
