"use client";

import { useState } from "react";
import { CopyButton } from "@/app/_components/copy-button";
import { cx } from "@/app/_components/ui";
import { SNIPPET_LABELS, tokenSnippets, type SnippetName } from "./snippets";

/** One tab per client: curl, the three SDKs, Claude Code and Codex, each ready to copy. */
export function SnippetTabs({ baseUrl, apiKey, model }: { baseUrl: string; apiKey: string; model: string }) {
  const snippets = tokenSnippets(baseUrl, apiKey, model);
  const [tab, setTab] = useState<SnippetName>("curl");
  return (
    <div>
      <div role="tablist" aria-label="Code examples" className="flex flex-wrap gap-1">
        {(Object.keys(snippets) as SnippetName[]).map((name) => (
          <button
            key={name}
            role="tab"
            type="button"
            aria-selected={tab === name}
            onClick={() => setTab(name)}
            className={cx(
              "rounded-md px-3 py-1 text-sm",
              tab === name ? "bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900" : "text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800",
            )}
          >
            {SNIPPET_LABELS[name]}
          </button>
        ))}
      </div>
      <div className="relative mt-2">
        <pre role="tabpanel" data-testid="snippet" className="overflow-x-auto rounded-md bg-zinc-950 p-3 pr-20 text-xs text-zinc-100">
          {snippets[tab]}
        </pre>
        <div className="absolute right-2 top-2">
          <CopyButton text={snippets[tab]} />
        </div>
      </div>
    </div>
  );
}
