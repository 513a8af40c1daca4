import { safeJson } from "./json";
import { scanJson, type JsonMember, type JsonScan } from "./json-scan";
import { forOneUse } from "./one-use-bytes";

// A relayed body goes upstream as the client's own bytes, with only the members the
// gateway must change (the model, usage reporting) rewritten: key order, spacing, number
// spelling and escapes stay as the client sent them, and a large agent request is not
// serialised again (JSON.stringify of a 70 KB conversation costs ~240 µs). Where the
// members lie comes from the byte scan (json-scan.ts), done once when the body was read.

/** No limits: the bytes were measured against them when they were read. */
const UNLIMITED = { depth: Number.POSITIVE_INFINITY, objects: Number.POSITIVE_INFINITY, values: Number.POSITIVE_INFINITY };

/**
 * The JSON object in `bytes` with the members in `set` replaced, or added at its end,
 * or removed where the value is `undefined` (as JSON.stringify leaves it out), and every
 * other byte as it was; with nothing to change, the bytes themselves (the caller parsed
 * them). Undefined when the bytes are not one plain UTF-8 JSON object whose members can be
 * told apart (a byte order mark, a key to set given twice): the caller then serialises its
 * parsed copy instead.
 */
export function rewriteJsonObject(bytes: Buffer, set: Record<string, unknown>, layout?: JsonScan["object"]): Buffer | undefined {
  const keys = Object.keys(set);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  // Nothing to change: the bytes the caller parsed go as they are (no scan).
  if (keys.length === 0) return bytes;
  const found = layout ?? scanJson(bytes, 0, UNLIMITED).object;
  if (!found) return undefined;
  const edits: { start: number; end: number; text: string }[] = [];
  const added: string[] = [];
  const removed = new Set<number>();
  for (const key of keys) {
    const matches = found.members.filter((member) => member.key === key);
    if (matches.length > 1) return undefined;
    if (set[key] === undefined) {
      if (matches.length === 1) removed.add(found.members.indexOf(matches[0]!));
      continue;
    }
    const value = JSON.stringify(set[key]);
    const match = matches[0];
    // A member already written as it is to be (the model the client named, most often) is left alone.
    if (match && !sameText(bytes, match.start, match.end, value)) edits.push({ start: match.start, end: match.end, text: value });
    else if (!match) added.push(`${JSON.stringify(key)}:${value}`);
  }
  edits.push(...removals(found.members, removed));
  // Nothing to change after all: the bytes, not a copy of them.
  if (edits.length === 0 && added.length === 0) return bytes;
  if (added.length > 0) {
    const kept = found.members.length > removed.size;
    edits.push({ start: found.close, end: found.close, text: `${kept ? "," : ""}${added.join(",")}` });
  }
  edits.sort((a, b) => a.start - b.start);
  const parts: Buffer[] = [];
  let from = 0;
  for (const edit of edits) {
    parts.push(bytes.subarray(from, edit.start), Buffer.from(edit.text, "utf8"));
    from = edit.end;
  }
  parts.push(bytes.subarray(from));
  return forOneUse(Buffer.concat(parts));
}

/** Whether bytes[start, end) are `text` as UTF-8 (decoded only when their length allows it: 1 to 3 bytes per UTF-16 unit). */
function sameText(bytes: Buffer, start: number, end: number, text: string): boolean {
  const length = end - start;
  return length >= text.length && length <= 3 * text.length && bytes.toString("utf8", start, end) === text;
}

/**
 * The byte ranges that remove the members at `removed`, run by run, each with one comma:
 * a run with a kept member after it goes up to that member's key; a run at the end goes
 * from the end of the kept member before it, so no comma is left before the closing brace.
 */
function removals(members: JsonMember[], removed: Set<number>): { start: number; end: number; text: string }[] {
  const edits: { start: number; end: number; text: string }[] = [];
  for (let first = 0; first < members.length; first += 1) {
    if (!removed.has(first)) continue;
    let last = first;
    while (removed.has(last + 1)) last += 1;
    const next = members[last + 1];
    const previous = members[first - 1];
    if (next) edits.push({ start: members[first]!.keyStart, end: next.keyStart, text: "" });
    else edits.push({ start: previous ? previous.end : members[first]!.keyStart, end: members[last]!.end, text: "" });
    first = last;
  }
  return edits;
}

/**
 * What a relay posts: the client's bytes with `changes` made in place when it has them and
 * they can be rewritten exactly, else the parsed body with the changes (serialised by the
 * poster).
 */
export function relayedBody(
  bytes: Buffer | undefined,
  body: Record<string, unknown>,
  changes: Record<string, unknown>,
  layout?: JsonScan["object"],
): Buffer | Record<string, unknown> {
  return (bytes && rewriteJsonObject(bytes, changes, layout)) ?? { ...body, ...changes };
}

/**
 * A JSON object's bytes with `changes` made (a member set to undefined is removed): every
 * other byte kept where the bytes allow it, else the parsed object serialised again.
 * Undefined when the bytes are not a JSON object.
 */
export function withJsonChanges(bytes: Buffer, changes: Record<string, unknown>): Buffer | undefined {
  const rewritten = rewriteJsonObject(bytes, changes);
  if (rewritten) return rewritten;
  const parsed = safeJson(bytes.toString("utf8"));
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? forOneUse(Buffer.from(JSON.stringify({ ...parsed, ...changes }))) : undefined;
}
