import { createHash } from "node:crypto";

// Namespace tools (`{type:"namespace", name, tools:[...]}`) group client tools; no other
// vendor has such groups, so each inner tool travels as a plain function under one flat
// name, and calls of that name come back as the namespace and the inner name.
//
// The rule: `<namespace>__<name>`, when that fits every vendor's limit (OpenAI and
// Anthropic: [a-zA-Z0-9_-], at most 64; Gemini: starts with a letter or `_`, at most 64
// here too). Otherwise characters outside [a-zA-Z0-9_-] become `_`, a leading digit or
// dash gets a `_` before it, and a name still too long keeps its first 55 characters
// followed by `_` and 8 hex digits of the SHA-256 of `namespace/name`. The rule depends on
// the two names only, so every turn of a conversation flattens a tool alike; the way back
// is the request's own table of declared tools (`ToolTable`), never a parse of the name.

const MAX_NAME = 64;
const SEPARATOR = "__";
const VALID = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

export function flatToolName(namespace: string, name: string): string {
  const joined = `${namespace}${SEPARATOR}${name}`;
  if (VALID.test(joined)) return joined;
  let safe = joined.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (!/^[a-zA-Z_]/.test(safe)) safe = `_${safe}`;
  if (safe.length <= MAX_NAME) return safe;
  const hash = createHash("sha256").update(`${namespace}/${name}`).digest("hex").slice(0, 8);
  return `${safe.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** A tool as the client declared it, under the name the upstream knows it by. */
export interface DeclaredTool {
  /** The client's name of the tool (inside its namespace, if any). */
  name: string;
  namespace?: string;
  /** A custom (freeform) tool: its calls carry raw text, not JSON arguments. */
  custom: boolean;
}

/** The request's tools by upstream name. */
export type ToolTable = ReadonlyMap<string, DeclaredTool>;

/** The upstream name of a call or choice the client names by namespace and name. */
export function upstreamToolName(name: string, namespace: string | null | undefined): string {
  return namespace ? flatToolName(namespace, name) : name;
}

/** A call's client-side names, from the upstream name it came back under. */
export function clientToolNames(table: ToolTable, upstreamName: string): { name: string; namespace?: string; custom: boolean } {
  return table.get(upstreamName) ?? { name: upstreamName, custom: false };
}
