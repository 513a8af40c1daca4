import type { StreamEvent } from "@/lib/canonical/stream-event";
import type { GroundingMetadata } from "./gemini-api";

// Google Search grounding as canonical events: the queries and pages as one web search,
// and each grounded segment of the answer as citations of its pages.

/** The events of an answer's grounding; `text` is all the answer's text, for the cited spans. */
export function* groundingEvents(grounding: GroundingMetadata, text: string, responseId: string): Generator<StreamEvent> {
  const pages = (grounding.groundingChunks ?? []).map((chunk) => chunk.web);
  let from = 0;
  for (const support of grounding.groundingSupports ?? []) {
    const segment = support.segment?.text;
    // Gemini counts bytes of one part; the segment's own text finds its span in characters.
    const start = segment ? text.indexOf(segment, from) : -1;
    if (!segment || start < 0) continue;
    from = start;
    for (const index of support.groundingChunkIndices ?? []) {
      const page = pages[index];
      if (page?.uri) yield { type: "citation", url: page.uri, ...(page.title ? { title: page.title } : {}), start, end: start + segment.length };
    }
  }
  const sources = pages.flatMap((page) => (page?.uri ? [{ url: page.uri, ...(page.title ? { title: page.title } : {}) }] : []));
  const queries = grounding.webSearchQueries ?? [];
  if (queries.length > 0 || sources.length > 0) yield { type: "web-search", id: `${responseId}_search`, status: "completed", queries, sources };
}
