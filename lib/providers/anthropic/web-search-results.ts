import type { StreamEvent, WebSource } from "@/lib/canonical/stream-event";

// Anthropic's web search server tool as canonical events: the server_tool_use block holds
// the query, the web_search_tool_result block what was found (or an error), and text
// blocks cite the pages they draw on.

type WebSearchEvent = Extract<StreamEvent, { type: "web-search" }>;
type CitationEvent = Extract<StreamEvent, { type: "citation" }>;

/** The search a web_search_tool_result block answers, with the query its server_tool_use asked. */
export function webSearchEvent(block: { tool_use_id?: unknown; content?: unknown }, queries: Map<string, string>): WebSearchEvent {
  const id = typeof block.tool_use_id === "string" ? block.tool_use_id : "";
  const query = queries.get(id);
  const results = Array.isArray(block.content) ? block.content : [];
  const sources: WebSource[] = results.flatMap((result) => {
    const entry = result as { type?: unknown; url?: unknown; title?: unknown };
    return entry.type === "web_search_result" && typeof entry.url === "string" ? [{ url: entry.url, ...(typeof entry.title === "string" ? { title: entry.title } : {}) }] : [];
  });
  // An error is an object in place of the list of results.
  const status = Array.isArray(block.content) ? "completed" : "failed";
  return { type: "web-search", id, status, queries: query ? [query] : [], sources };
}

/** The query of a server_tool_use block, from its input (whole, or streamed as JSON). */
export function searchQuery(input: unknown): string | undefined {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  const query = (value as { query?: unknown } | null)?.query;
  return typeof query === "string" ? query : undefined;
}

/** A text block's web citations, covering its text from `start` to `end`. */
export function citationEvents(citations: unknown[], start: number, end: number): CitationEvent[] {
  return citations.flatMap((citation) => {
    const entry = citation as { type?: unknown; url?: unknown; title?: unknown };
    if (entry.type !== "web_search_result_location" || typeof entry.url !== "string") return [];
    return [{ type: "citation" as const, url: entry.url, ...(typeof entry.title === "string" ? { title: entry.title } : {}), start, end }];
  });
}
