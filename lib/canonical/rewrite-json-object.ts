import { safeJson } from "./json";

// A relayed body goes upstream as the client's own bytes, with only the members the
// gateway must change (the model, usage reporting) rewritten: key order, spacing, number
// spelling and escapes stay as the client sent them, and a large agent request is not
// serialised again (JSON.stringify of a 70 KB conversation costs ~240 µs).
//
// The bytes are read as latin1 text, one character per byte, so positions are byte
// offsets; every character the scan looks for is ASCII, and UTF-8 never uses ASCII bytes
// inside a multibyte character. Strings are skipped with indexOf, which keeps the scan
// fast on bodies that are mostly text.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

interface Member {
  key: string;
  /** The key's opening quote. */
  keyStart: number;
  /** The value's first byte, and the byte after its last. */
  start: number;
  end: number;
}

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/** The position after the string that opens at `at`, or -1. */
function stringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** The position after the value that starts at `at`, or -1. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let index = at; index < text.length; ) {
      const code = text.charCodeAt(index);
      if (code === QUOTE) {
        index = stringEnd(text, index);
        if (index === -1) return -1;
        continue;
      }
      if (code === 0x7b || code === 0x5b) depth += 1;
      else if ((code === 0x7d || code === 0x5d) && --depth === 0) return index + 1;
      index += 1;
    }
    return -1;
  }
  let index = at;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    if (code === 0x2c || code === 0x7d || code === 0x5d || isSpace(code)) break;
    index += 1;
  }
  return index > at ? index : -1;
}

/** The top-level members of one JSON object, and where its closing brace is; undefined if the text is not that. */
function topLevelMembers(text: string): { members: Member[]; close: number } | undefined {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== 0x7b) return undefined;
  at = skipSpace(text, at + 1);
  const members: Member[] = [];
  if (text.charCodeAt(at) === 0x7d) return skipSpace(text, at + 1) === text.length ? { members, close: at } : undefined;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    const keyStart = at;
    const keyEnd = stringEnd(text, at);
    if (keyEnd === -1) return undefined;
    const rawKey = text.slice(at + 1, keyEnd - 1);
    // A key with escapes is decoded; a non-ASCII key comes out garbled, and then it is
    // simply not one of the ASCII keys the gateway sets.
    const key = rawKey.includes("\\") ? (JSON.parse(`"${rawKey}"`) as string) : rawKey;
    at = skipSpace(text, keyEnd);
    if (text.charCodeAt(at) !== 0x3a) return undefined;
    const start = skipSpace(text, at + 1);
    const end = valueEnd(text, start);
    if (end === -1) return undefined;
    members.push({ key, keyStart, start, end });
    at = skipSpace(text, end);
    const next = text.charCodeAt(at);
    if (next === 0x2c) {
      at = skipSpace(text, at + 1);
      continue;
    }
    if (next !== 0x7d || skipSpace(text, at + 1) !== text.length) return undefined;
    return { members, close: at };
  }
}

/**
 * The JSON object in `bytes` with the members in `set` replaced, or added at its end,
 * or removed where the value is `undefined` (as JSON.stringify leaves it out), and every
 * other byte as it was; with nothing to change, the bytes themselves (the caller parsed
 * them). Undefined when the bytes are not one plain UTF-8 JSON object whose members can be
 * told apart (a byte order mark, a key to set given twice): the caller then serialises its
 * parsed copy instead.
 */
export function rewriteJsonObject(bytes: Buffer, set: Record<string, unknown>): Buffer | undefined {
  const keys = Object.keys(set);
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return undefined;
  // Nothing to change: the bytes the caller parsed go as they are (no scan).
  if (keys.length === 0) return bytes;
  const found = topLevelMembers(bytes.toString("latin1"));
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
    if (matches.length === 1) edits.push({ start: matches[0]!.start, end: matches[0]!.end, text: value });
    else added.push(`${JSON.stringify(key)}:${value}`);
  }
  edits.push(...removals(found.members, removed));
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
  return Buffer.concat(parts);
}

/**
 * The byte ranges that remove the members at `removed`, run by run, each with one comma:
 * a run with a kept member after it goes up to that member's key; a run at the end goes
 * from the end of the kept member before it, so no comma is left before the closing brace.
 */
function removals(members: Member[], removed: Set<number>): { start: number; end: number; text: string }[] {
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
export function relayedBody(bytes: Buffer | undefined, body: Record<string, unknown>, changes: Record<string, unknown>): Buffer | Record<string, unknown> {
  return (bytes && rewriteJsonObject(bytes, changes)) ?? { ...body, ...changes };
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
  return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? Buffer.from(JSON.stringify({ ...parsed, ...changes })) : undefined;
}
