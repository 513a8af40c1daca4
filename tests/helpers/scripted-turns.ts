// What the loopback fakes do beyond echoing, driven by the prompt, the same in every
// vendor's fake: "call the tool X" calls the declared tool X (by its own name, or a
// flattened namespace name ending in `__X`) with empty arguments, or with the JSON object
// that follows ("call the tool X with {...}"); "search the web"
// runs the vendor's own search where it was declared; a turn that answers a tool call
// gets "Tool said: <output>".

export const SEARCH_PAGE = { url: "https://example.com/gateway-news", title: "Gateway news" };
export const SEARCH_QUERY = "gateway news";
/** The cited sentence of a search answer. */
export const SEARCH_ANSWER = "The gateway shipped today.";

export function requestedTool(prompt: string, declared: string[]): string | undefined {
  const wanted = /\bcall the tool ([\w.:-]+)/i.exec(prompt)?.[1];
  if (!wanted) return undefined;
  return declared.find((name) => name === wanted) ?? declared.find((name) => name.endsWith(`__${wanted}`));
}

/** The arguments the prompt gives the tool it asks for: the first JSON object after "with". */
export function requestedArguments(prompt: string): Record<string, unknown> {
  const match = /\bcall the tool [\w.:-]+ with (\{)/i.exec(prompt);
  if (!match) return {};
  const start = match.index + match[0].length - 1;
  for (let end = prompt.indexOf("}", start); end !== -1; end = prompt.indexOf("}", end + 1)) {
    try {
      return JSON.parse(prompt.slice(start, end + 1));
    } catch {
      // not yet the object's last brace
    }
  }
  return {};
}

/** Whether the prompt asked for a tool call at all (so a tool's result is answered as such). */
export const asksForTool = (prompt: string) => /\bcall the tool [\w.:-]+/i.test(prompt);

export const wantsSearch = (prompt: string) => /\bsearch the web\b/i.test(prompt);

type Turn = { role: string; content?: unknown; parts?: unknown };

/** The text of the last user turn that has any (tool-result turns have none). */
export function lastPromptText(turns: Turn[]): string {
  for (const turn of [...turns].reverse()) {
    if (turn.role !== "user") continue;
    const content = turn.content ?? turn.parts;
    const text =
      typeof content === "string" ? content : Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join("") : "";
    if (text) return unquoted(text);
  }
  return "";
}

/** opencode sends a prompt given on its command line as a JSON string literal. */
function unquoted(text: string): string {
  if (!/^".*"$/s.test(text)) return text;
  try {
    const inner = JSON.parse(text);
    return typeof inner === "string" ? inner : text;
  } catch {
    return text;
  }
}
