import { GatewayError } from "./gateway-error";
import { skipSpace, type JsonMember, type JsonScan } from "./json-scan";

// A client's JSON body as read: its bytes and where its members lie (json-scan.ts). Parsed
// whole only when something needs all of it, and then a large array member (an agent's
// conversation) item by item: the same value JSON.parse gives, without decoding the body
// into one string (a string past 128 KB is allocated in fresh pages on every request).

/** An array member larger than this is parsed item by item. */
const ITEM_BY_ITEM_ABOVE_BYTES = 32 * 1024;

const invalid = () => new GatewayError("invalid_request", "We could not parse the JSON body of your request: it is not valid JSON.", { code: "invalid_json" });

export type JsonLayout = NonNullable<JsonScan["object"]>;

export class JsonBody {
  #value: Record<string, unknown> | undefined;

  constructor(
    readonly bytes: Buffer,
    /** Where the JSON starts (after a byte order mark). */
    readonly start: number,
    /** The root object's members; undefined when the bytes are to be parsed whole (see JsonScan). */
    readonly layout: JsonLayout | undefined,
  ) {}

  /** The body as JSON.parse gives it; refused unless it is a JSON object. */
  value(): Record<string, unknown> {
    // A small body is one JSON.parse: cheaper than a parse per member.
    this.#value ??= this.layout && this.bytes.length > ITEM_BY_ITEM_ABOVE_BYTES ? this.parseMembers() : parseObject(this.bytes.toString("utf8", this.start));
    return this.#value;
  }

  /** One member, by name; undefined when absent. */
  find(key: string): JsonMember | undefined {
    return this.layout?.members.find((member) => member.key === key);
  }

  /** One member's value parsed (its array items one by one when large). */
  parseMember(member: JsonMember): unknown {
    if (!member.items || member.end - member.start <= ITEM_BY_ITEM_ABOVE_BYTES) return this.#parse(member.start, member.end);
    const items: unknown[] = [];
    for (let index = 0; index < member.items.length / 2; index += 1) items.push(this.parseItem(member, index));
    return items;
  }

  /**
   * Where each value of `key` starts anywhere inside `member`: the bytes are searched for
   * the key with its quotes, which inside a JSON string can only appear escaped. Only the
   * start: a reader walks the value itself, once (json-scan.ts's valueEnd finds its end).
   */
  *valueStartsOf(member: JsonMember, key: string): Generator<number> {
    const needle = Buffer.from(JSON.stringify(key));
    // Searched from the key's rarest-looking byte on (`_calls"` of "tool_calls"): Buffer.indexOf
    // finds a needle's first byte with memchr, and a quote starts every string in the body.
    const cut = Math.max(1, needle.indexOf("_"));
    const tail = needle.subarray(cut);
    const within = this.bytes.subarray(0, member.end);
    for (let found = within.indexOf(tail, member.start + cut); found !== -1; found = within.indexOf(tail, found + tail.length)) {
      const at = found - cut;
      let head = 0;
      while (head < cut && within[at + head] === needle[head]) head += 1;
      if (head < cut) continue;
      // The key's own quoted text as a value (`"content": "tool_calls"`) is no key: a colon follows a key.
      const colon = skipSpace(within, at + needle.length);
      if (within[colon] !== 0x3a) continue;
      yield skipSpace(within, colon + 1);
    }
  }

  /** The item at `index` of an array member, parsed. */
  parseItem(member: JsonMember, index: number): unknown {
    return this.#parse(member.items![2 * index]!, member.items![2 * index + 1]!);
  }

  /** The members other than those named in `except`, parsed. */
  parseMembers(except: readonly string[] = []): Record<string, unknown> {
    const value: Record<string, unknown> = {};
    for (const member of this.layout?.members ?? []) {
      // As JSON.parse does: `__proto__` is an own member, never the prototype.
      if (!except.includes(member.key)) Object.defineProperty(value, member.key, { value: this.parseMember(member), enumerable: true, writable: true, configurable: true });
    }
    return value;
  }

  /** The first byte of a member's value: `[` for an array, `"` for a string. */
  firstByte(member: JsonMember): number {
    return this.bytes[member.start]!;
  }

  #parse(start: number, end: number): unknown {
    try {
      return JSON.parse(this.bytes.toString("utf8", start, end));
    } catch {
      throw invalid();
    }
  }
}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    // V8 parses any depth without recursion; the depth limit is for what comes after.
    value = JSON.parse(text);
  } catch {
    throw invalid();
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new GatewayError("invalid_request", "The request body must be a JSON object.", { code: "invalid_body" });
  }
  return value as Record<string, unknown>;
}

/**
 * `body` with the members named in `deferred` read only when first used (each a getter that
 * asks `whole()`), in the body's own key order: a relay forwards the bytes and never reads
 * them, anything that does gets the validated whole. `head` holds the other members.
 */
export function withDeferredMembers(layout: JsonLayout, head: Record<string, unknown>, deferred: readonly string[], whole: () => Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { key } of layout.members) {
    if (deferred.includes(key)) Object.defineProperty(body, key, { get: () => whole()[key], enumerable: true, configurable: true });
    else if (key in head) Object.defineProperty(body, key, { value: head[key], enumerable: true, writable: true, configurable: true });
  }
  // What the schema added to the head (none today) keeps its place after the members.
  for (const key of Object.keys(head)) if (!(key in body)) body[key] = head[key];
  return body;
}
