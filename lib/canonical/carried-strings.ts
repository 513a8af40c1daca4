import { randomBytes } from "node:crypto";
import { encodeJson } from "./encode-json";
import { forOneUse } from "./one-use-bytes";
import type { JsonBody } from "./json-body";
import { BACKSLASH, COLON, firstLongString, type JsonMember, QUOTE, scanJson } from "./json-scan";
import type { ChatRequest } from "./request";

// The long strings of a client's JSON body (tool results, file contents, tool descriptions)
// carried into a translated body as the client's own escaped bytes: an agent's turn is
// mostly such text, and decoding it, parsing it, writing it back out with JSON.stringify
// and encoding it to UTF-8 was most of a translation's cost.
//
// Each long string is parsed as a placeholder (a control character, a nonce drawn for the
// request, its number, the control character), which passes through validation and
// conversion as any string would: kept, joined with others, put in another object. The
// translated body is encoded with JSON.stringify, which writes the placeholder as plain
// ASCII, and each placeholder is then swapped for the string's bytes as the client sent
// them, quotes excluded. Escaping composes (the escape of a joined string is the joined
// escapes), so the result is the JSON of the body with the strings' true values. It holds
// only where a string is written once and kept whole or dropped whole, so only text is
// carried: the values of members a format names (a block's text, a tool result's content,
// a tool's description), never an id or a name that a conversion rewrites or checks, and
// never a string inside a tool call's input, which becomes the text of a JSON string of its
// own (see CarryRule). `restore` refuses a body where a placeholder was escaped a second
// time or lost a part. The nonce is unknown to the client, so no text of its own can pass
// for a placeholder.
//
// The bytes between a string's quotes are not checked as JSON.parse would check them
// (control characters, bad escapes): like a relayed conversation, such text reaches the
// upstream, which refuses it.

/** Which strings of a member are carried (see CarriedStrings.text). */
export interface CarryRule {
  /** The names of the members whose string values are text to carry: "text", "content"... */
  keys: ReadonlySet<string>;
  /** How many containers deep such a member may be. */
  depth: number;
  /** Whether a value that is itself a long string is carried. */
  whole: boolean;
}

/** How JSON.stringify writes the placeholder's control character, U+0001. */
const CONTROL = "\\u0001";
const CONTROL_BYTES = Buffer.from(CONTROL);
/**
 * A translated body is encoded as one string when the client's bytes outside the carried
 * text are at most this many (an agent's turn, mostly text, is): one JSON.stringify costs
 * less than writing it member by member, and the string is then most often under the 128
 * KB past which V8 gives a string fresh pages (a string with a character past Latin-1
 * takes two bytes a character: only the speed depends on it).
 */
const ONE_STRING_AT_MOST_BYTES = 64 * 1024;
/** No limits: the bytes were measured against them when they were read. */
const UNLIMITED = { depth: Number.POSITIVE_INFINITY, objects: Number.POSITIVE_INFINITY, values: Number.POSITIVE_INFINITY };

export class CarriedStrings {
  /** Pairs of offsets into `bytes`: each carried string's bytes between its quotes. */
  readonly #ranges: number[] = [];
  /** How many of `bytes` the carried strings hold. */
  #carriedBytes = 0;
  readonly #nonce = randomBytes(9).toString("base64url");
  /** A placeholder's start as JSON text (as it is inserted, and as JSON.stringify writes it). */
  readonly #marker = Buffer.from(`${CONTROL}${this.#nonce}`);

  constructor(
    readonly bytes: Buffer,
    /** The long strings of `bytes` (JsonScan.longStrings): the only strings carried, so the only ones looked at. */
    readonly longStrings: readonly number[] = scanJson(bytes, 0, UNLIMITED).longStrings ?? [],
  ) {}

  /**
   * The JSON text of bytes[start, end), a value inside `depth` containers, with each long
   * string that is the value of a member named in `rule.keys`, nested at most `rule.depth`
   * containers deep in it (counting the value's own), replaced by its placeholder;
   * `rule.whole` carries the value itself when it is a long string.
   */
  text(start: number, end: number, rule: CarryRule, depth = 0): string {
    const { bytes, longStrings } = this;
    let text = "";
    let from = start;
    for (let at = firstLongString(longStrings, start); at < longStrings.length; at += 3) {
      const open = longStrings[at]!;
      const close = longStrings[at + 1]!;
      if (close >= end) break;
      const nested = longStrings[at + 2]! - depth;
      if (nested === 0 ? !rule.whole : nested > rule.depth || !rule.keys.has(memberKey(bytes, open) ?? "")) continue;
      text += `${bytes.toString("utf8", from, open + 1)}${CONTROL}${this.#nonce}${this.#ranges.length / 2}${CONTROL}`;
      this.#ranges.push(open + 1, close);
      this.#carriedBytes += close - open - 1;
      from = close;
    }
    return text + bytes.toString("utf8", from, end);
  }

  /**
   * JSON.stringify's bytes for `value` (what was parsed through `text`, converted): one
   * string when little of the body is left beside the carried text, else written member by
   * member (encode-json.ts), as a large body is.
   */
  encode(value: unknown): Buffer {
    return this.bytes.length - this.#carriedBytes <= ONE_STRING_AT_MOST_BYTES ? Buffer.from(JSON.stringify(value) ?? "null") : encodeJson(value);
  }

  /**
   * `encoded` (JSON.stringify's bytes of what was parsed through `text`) with each
   * placeholder replaced by its string's bytes; undefined when a placeholder is not as
   * JSON.stringify writes it once (cut, or escaped again), and the body cannot be carried.
   * Every U+0001 the encoded body holds must be a whole placeholder's: one left over is
   * part of a placeholder a conversion changed (or the client's own, which is then
   * encoded the usual way).
   */
  restore(encoded: Buffer): Buffer | undefined {
    let controls = 0;
    for (let at = encoded.indexOf(CONTROL_BYTES); at !== -1; at = encoded.indexOf(CONTROL_BYTES, at + CONTROL_BYTES.length)) controls += 1;
    const marker = this.#marker;
    const parts: Buffer[] = [];
    let restored = 0;
    let from = 0;
    let length = 0;
    for (let found = encoded.indexOf(marker); found !== -1; found = encoded.indexOf(marker, from)) {
      // Escaped again, the placeholder's backslash follows one of its own.
      let backslashes = 0;
      while (encoded[found - 1 - backslashes] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 1) return undefined;
      let at = found + marker.length;
      let number = 0;
      const digits = at;
      while (at < encoded.length && encoded[at]! >= 0x30 && encoded[at]! <= 0x39) number = number * 10 + encoded[at++]! - 0x30;
      if (at === digits || at - digits > 9 || number >= this.#ranges.length / 2 || encoded.toString("latin1", at, at + CONTROL.length) !== CONTROL) return undefined;
      const start = this.#ranges[2 * number]!;
      const end = this.#ranges[2 * number + 1]!;
      parts.push(encoded.subarray(from, found), this.bytes.subarray(start, end));
      length += found - from + end - start;
      from = at + CONTROL.length;
      restored += 1;
    }
    if (controls !== 2 * restored) return undefined;
    if (restored === 0) return forOneUse(encoded);
    parts.push(encoded.subarray(from));
    // The length given: Buffer.concat would otherwise walk the parts once more to sum it.
    return forOneUse(Buffer.concat(parts, length + encoded.length - from));
  }
}

/**
 * The key (its raw bytes, as Latin-1) of the member whose value is the string opening at
 * `open`; undefined when that string is not a member's value (an item, or a key itself).
 */
function memberKey(bytes: Buffer, open: number): string | undefined {
  let at = open - 1;
  while (isSpace(bytes[at]!)) at -= 1;
  if (bytes[at] !== COLON) return undefined;
  at -= 1;
  while (isSpace(bytes[at]!)) at -= 1;
  const keyEnd = at;
  if (bytes[keyEnd] !== QUOTE) return undefined;
  // The key's opening quote: the first one before its end that no backslash escapes.
  for (at = keyEnd - 1; at >= 0; at -= 1) {
    if (bytes[at] !== QUOTE) continue;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return bytes.toString("latin1", at + 1, keyEnd);
  }
  return undefined;
}

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** A chat whose long strings are placeholders, and how to put their bytes back into an encoded body. */
export interface CarriedChat {
  chat: ChatRequest;
  /** What the conversion warned of (the same as the chat's own conversion would). */
  warnings: string[];
  /** JSON.stringify's bytes for a body built from `chat`, with the client's bytes in place of the placeholders; undefined when they cannot be put back (see CarriedStrings.restore). */
  encode(body: Record<string, unknown>): Buffer | undefined;
}

/**
 * The carried form of a request read from `json`: `head` (its other members, validated)
 * with the members `rules` name parsed with their text carried, given to `convert`, which
 * validates and converts it (undefined when the schema refuses it). Undefined as well when
 * a member is not valid JSON: the whole parse then says what is wrong.
 */
export function carriedConversation(
  json: JsonBody,
  head: object,
  rules: readonly (readonly [key: string, rule: CarryRule])[],
  convert: (value: Record<string, unknown>) => Omit<CarriedChat, "encode"> | undefined,
): CarriedChat | undefined {
  const strings = new CarriedStrings(json.bytes, json.layout?.longStrings);
  const value: Record<string, unknown> = { ...head };
  try {
    for (const [key, rule] of rules) {
      const member = json.find(key);
      if (member) value[key] = parseCarried(member, strings, rule);
    }
    const converted = convert(value);
    return converted && { ...converted, encode: (body) => strings.restore(strings.encode(body)) };
  } catch {
    // Invalid JSON, or what the conversion refuses.
    return undefined;
  }
}

/** One member's value (inside the root object) parsed with its long text carried, its array items one by one (never the whole as one string). */
function parseCarried(member: JsonMember, strings: CarriedStrings, rule: CarryRule): unknown {
  if (!member.items) return JSON.parse(strings.text(member.start, member.end, rule, 1));
  const items: unknown[] = [];
  for (let index = 0; index < member.items.length; index += 2) items.push(JSON.parse(strings.text(member.items[index]!, member.items[index + 1]!, rule, 2)));
  return items;
}

const carriers = new WeakMap<ChatRequest, () => CarriedChat | undefined>();

/** Makes the carried form of `chat` available, built by `make` once, when first asked for. */
export function offerCarriedForm(chat: ChatRequest, make: () => CarriedChat | undefined): void {
  let made: { value: CarriedChat | undefined } | undefined;
  carriers.set(chat, () => {
    made ??= { value: make() };
    return made.value;
  });
}

/** `copy` (the chat for another model) offers what `chat` offers. */
export function shareCarriedForm(chat: ChatRequest, copy: ChatRequest): void {
  const carrier = carriers.get(chat);
  if (carrier) carriers.set(copy, carrier);
}

/**
 * `request` with its long strings carried, for a body given to its `encode`; undefined
 * when the request offers none. Each field the request holds as a value (the model, say,
 * which a fallback changes) is the request's own.
 */
function carriedChat(request: ChatRequest): CarriedChat | undefined {
  const carried = carriers.get(request)?.();
  if (!carried) return undefined;
  const chat = { ...carried.chat };
  for (const [field, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(request))) {
    if ("value" in descriptor) (chat as Record<string, unknown>)[field] = descriptor.value;
  }
  return { ...carried, chat };
}

/**
 * The body `build` makes for `request`, encoded, with the client's bytes for its long
 * strings, when the request offers them; else the object `build` makes of the request
 * itself. `build` pushes its warnings to the array it is given.
 */
export function carriedBody(request: ChatRequest, warnings: string[], build: (chat: ChatRequest, warnings: string[]) => Record<string, unknown>): Record<string, unknown> | Buffer {
  const carried = carriedChat(request);
  if (carried) {
    const own = [...carried.warnings];
    const encoded = carried.encode(build(carried.chat, own));
    if (encoded) {
      // The canonical conversion's warnings may be there already, if the chat was converted whole for another attempt.
      const known = new Set(warnings);
      for (const warning of own) if (!known.has(warning)) warnings.push(warning);
      return encoded;
    }
  }
  return build(request, warnings);
}
