// One pass over a JSON text's bytes, before anything parses it: the nesting, objects and
// values counted against the shape limits (json-shape.ts), and, when the root is an object,
// where each of its members' keys and values lie and where the items of its array members
// lie; and where the long strings lie, at any depth. A relay then reads the few members it
// needs, a parse decodes an agent's conversation one message at a time (a string past 128 KB
// costs V8 fresh pages on every request, and a conversation decoded whole is one), a rewrite
// edits members in place, and a translation carries the long strings as they are
// (carried-strings.ts).
//
// Strings are skipped with Buffer.indexOf: braces and commas in code count for nothing, and
// a body that is mostly text costs little more than memchr over it. Inside a JSON string a
// quote is always escaped, so the first unescaped quote ends it. UTF-8 never uses ASCII
// bytes inside a multibyte character, so every byte the scan looks at is what it seems.
// Invalid JSON may be described wrong; JSON.parse refuses it when it is parsed.

/** What JSON may hold whatever its size (json-shape.ts sets them). */
export interface JsonShapeLimits {
  depth: number;
  objects: number;
  values: number;
}

export type JsonShape = "ok" | "too-deep" | "too-many-objects" | "too-many-values";

/** The bytes of JSON's structure, for the readers of raw JSON (here, carried-strings.ts). */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACE = 0x7b;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACE = 0x7d;
export const CLOSE_BRACKET = 0x5d;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** One member of the root object: byte offsets into the scanned bytes. */
export interface JsonMember {
  key: string;
  /** The key's opening quote. */
  keyStart: number;
  /** The value's first byte, and the byte after its last. */
  start: number;
  end: number;
  /** For an array value: where each item starts and ends (pairs of offsets). */
  items?: number[];
}

/** Strings whose bytes between the quotes are at least this many are listed by the scan (JsonScan.longStrings). */
export const LONG_STRING_BYTES = 256;

export interface JsonScan {
  shape: JsonShape;
  /**
   * Every string of LONG_STRING_BYTES or more, in order, as triples: its opening quote,
   * its closing quote, and how many containers enclose it (1 directly in the root
   * object). Given with any shape but when the scan stops early (past a limit, or at an
   * unterminated string).
   */
  longStrings?: number[];
  /**
   * The root object's members in order and its closing brace; undefined when the root is
   * not an object, the text is not one JSON object after all, or a key repeats (JSON.parse
   * keeps the last, a reader of members would not know which).
   */
  object?: { members: JsonMember[]; close: number; longStrings: number[]; unkeyedItems?: boolean };
}

/**
 * Arrays the scan checks as it goes: those that are the value of a member named `array`
 * (at any depth), each of whose object items must have a member named `key` (both as UTF-8
 * bytes). The answer is JsonScan.object.unkeyedItems: true when an item lacks the key, or
 * when such a member's value is not an array at all.
 */
export interface ItemKeyWatch {
  array: Uint8Array;
  key: Uint8Array;
}

/**
 * Bytes a string is read one by one before Buffer.indexOf takes over: a native call costs
 * about as much as this many bytes of the loop, and the strings between most quotes (keys,
 * escaped quotes in tool arguments) are shorter.
 */
const BYTE_BY_BYTE = 48;

/** The offset of the quote that closes the string opening at `at`, or -1. */
export function closingQuote(bytes: Uint8Array, at: number): number {
  const length = bytes.length;
  let index = at + 1;
  for (;;) {
    const stop = Math.min(length, index + BYTE_BY_BYTE);
    for (; index < stop; index++) {
      const byte = bytes[index];
      if (byte === QUOTE) return index;
      // The escaped byte is skipped: an escaped quote never ends the string.
      if (byte === BACKSLASH) index += 1;
    }
    if (index >= length) return -1;
    // A long string (a file's contents): its next quote, escaped when an odd run of backslashes precedes it.
    const quote = (bytes as Buffer).indexOf(QUOTE, index);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    index = quote + 1;
  }
}

/** The index in `longStrings` (JsonScan.longStrings) of the first triple whose string opens at or after `start`. */
export function firstLongString(longStrings: readonly number[], start: number): number {
  let low = 0;
  let high = longStrings.length / 3;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (longStrings[3 * middle]! < start) low = middle + 1;
    else high = middle;
  }
  return 3 * low;
}

/** The offset after the value (a container, string or scalar) that starts at `at`, or -1. */
export function valueEnd(bytes: Uint8Array, at: number): number {
  const first = bytes[at];
  if (first === QUOTE) {
    const quote = closingQuote(bytes, at);
    return quote === -1 ? -1 : quote + 1;
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let index = at; index < bytes.length; index++) {
      const byte = bytes[index];
      if (byte === QUOTE) {
        index = closingQuote(bytes, index);
        if (index === -1) return -1;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --depth === 0) return index + 1;
    }
    return -1;
  }
  let index = at;
  while (index < bytes.length && !isSpace(bytes[index]!) && bytes[index] !== COMMA && bytes[index] !== CLOSE_BRACE && bytes[index] !== CLOSE_BRACKET) index += 1;
  return index > at ? index : -1;
}

/**
 * Whether every object item of the array that opens at `start` has a member keyed `name`
 * (the key's UTF-8 bytes), read without parsing: at the items' own level, a string followed
 * by a colon is a key. Each item is judged by itself (a key given twice in one item makes up
 * for none in another). The array is walked once, to its closing bracket; false when it
 * never closes.
 */
export function everyItemHasKey(bytes: Uint8Array, start: number, name: Uint8Array, longStrings: readonly number[] = []): boolean {
  let depth = 0;
  let has = true;
  // The scan's long strings (a patch in a tool call's arguments) are jumped, not read again.
  let long = firstLongString(longStrings, start);
  for (let index = start; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte === QUOTE) {
      while (long < longStrings.length && longStrings[long]! < index) long += 3;
      const quote = long < longStrings.length && longStrings[long] === index ? longStrings[long + 1]! : closingQuote(bytes, index);
      if (quote === -1) return false;
      if (depth === 2 && quote - index - 1 === name.length && sameBytes(bytes, index + 1, name) && bytes[skipSpace(bytes, quote + 1)] === COLON) has = true;
      index = quote;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      // An object item starts: it has the key once it is seen at this level.
      if (depth === 2 && byte === OPEN_BRACE) has = false;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 1 && !has) return false;
      if (depth === 0) return true;
    }
  }
  return false;
}

/** Whether `bytes` hold `name` from `at` (compared in place: a subarray per key costs more than the compare). */
export function sameBytes(bytes: Uint8Array, at: number, name: Uint8Array): boolean {
  for (let index = 0; index < name.length; index++) if (bytes[at + index] !== name[index]) return false;
  return true;
}

/** The offset of the first byte that is not white space (or a colon, when `colon`) from `at`. */
export function skipSpace(bytes: Uint8Array, at: number, colon = false): number {
  while (at < bytes.length && (isSpace(bytes[at]!) || (colon && bytes[at] === COLON))) at += 1;
  return at;
}

// Where the scan is inside the root object.
const KEY = 0;
const COLON_NEXT = 1;
const VALUE = 2;
const IN_VALUE = 3;
type State = typeof KEY | typeof COLON_NEXT | typeof VALUE | typeof IN_VALUE;

/** Scans `bytes` from `start` (after a byte order mark): shape, and the root object's layout. */
export function scanJson(bytes: Uint8Array, start: number, limits: JsonShapeLimits, watch?: ItemKeyWatch): JsonScan {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let depth = 0;
  let objects = 0;
  let values = 1;
  // Just after an opening brace or bracket: the next byte says whether the container holds an item.
  let opened = false;
  let regular = true;
  const members: JsonMember[] = [];
  const longStrings: number[] = [];
  const keys = new Set<string>();
  let state: State = KEY;
  let member: JsonMember | undefined;
  let items: number[] | undefined;
  // The offset after the last byte that was not white space.
  let lastEnd = 0;
  let close = -1;
  let rootSeen = false;
  // The watched array being scanned (its depth inside it, -1 when none), the depth of its
  // object item under way (-1 when none), and whether that item has the key so far.
  let watchedNext = false;
  let watchedDepth = -1;
  let itemDepth = -1;
  let itemHas = false;
  let unkeyedItems = false;
  const endMember = () => {
    if (!member) return;
    member.end = lastEnd;
    members.push(member);
    member = undefined;
  };

  for (let index = start; index < buffer.length; index++) {
    const byte = buffer[index]!;
    if (isSpace(byte)) continue;
    if (watchedNext && byte !== COLON) {
      // The watched member's value: an array is checked item by item, anything else counts as unkeyed.
      watchedNext = false;
      if (byte === OPEN_BRACKET) watchedDepth = depth + 1;
      else unkeyedItems = true;
    }
    if (opened) {
      opened = false;
      if (byte !== CLOSE_BRACE && byte !== CLOSE_BRACKET && ++values > limits.values) return { shape: "too-many-values" };
    }
    if (depth === 0) {
      // The root: one value, an object for the layout.
      if (rootSeen || byte !== OPEN_BRACE) regular = false;
      rootSeen = true;
    }
    if (depth === 1 && regular) {
      if (state === KEY) {
        if (byte === CLOSE_BRACE && members.length === 0 && member === undefined) {
          // {} : nothing to record.
        } else if (byte !== QUOTE) regular = false;
      } else if (state === COLON_NEXT) {
        if (byte === COLON) {
          state = VALUE;
          lastEnd = index + 1;
          continue;
        }
        regular = false;
      } else if (state === VALUE) {
        if (byte === COMMA || byte === CLOSE_BRACE) regular = false;
        member!.start = index;
        state = IN_VALUE;
        if (byte === OPEN_BRACKET) items = member!.items = [];
      } else if (byte === COMMA) {
        endMember();
        state = KEY;
      } else if (byte !== CLOSE_BRACE && lastEnd !== index) {
        // A second value after the first (`"a": 1 2`).
        regular = false;
      }
    }
    if (depth === 2 && items) {
      // An item of the array member being scanned starts, ends at a comma, or is missing (`[1,,2]`, `[1,]`).
      const open = items.length % 2 === 1;
      if (byte === COMMA) {
        if (open) items.push(lastEnd);
        else regular = false;
      } else if (byte === CLOSE_BRACKET) {
        if (!open && items.length > 0) regular = false;
      } else if (!open) items.push(index);
    }

    if (byte === QUOTE) {
      const end = closingQuote(buffer, index);
      if (end === -1) return { shape: "ok" };
      if (end - index > LONG_STRING_BYTES) longStrings.push(index, end, depth);
      if (watch) {
        const length = end - index - 1;
        if (length === watch.key.length && depth === itemDepth && sameBytes(buffer, index + 1, watch.key) && buffer[skipSpace(buffer, end + 1)] === COLON) itemHas = true;
        else if (length === watch.array.length && watchedDepth === -1 && sameBytes(buffer, index + 1, watch.array) && buffer[skipSpace(buffer, end + 1)] === COLON)
          watchedNext = true;
      }
      if (depth === 1 && regular && state === KEY) {
        const raw = buffer.toString("utf8", index + 1, end);
        // A key with escapes is decoded as JSON.parse would; a bad escape is left to it.
        let key = raw;
        if (raw.includes("\\")) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            regular = false;
          }
        }
        if (keys.has(key)) regular = false;
        keys.add(key);
        member = { key, keyStart: index, start: -1, end: -1 };
        state = COLON_NEXT;
      }
      index = end;
      lastEnd = end + 1;
      continue;
    }
    if (byte === COMMA) {
      if (++values > limits.values) return { shape: "too-many-values" };
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limits.depth) return { shape: "too-deep" };
      if (++objects > limits.objects) return { shape: "too-many-objects" };
      opened = true;
      if (depth === watchedDepth + 1 && watchedDepth !== -1 && byte === OPEN_BRACE) {
        itemDepth = depth;
        itemHas = false;
      }
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (depth === itemDepth) {
        if (!itemHas) unkeyedItems = true;
        itemDepth = -1;
      } else if (depth === watchedDepth) watchedDepth = -1;
      if (depth === 2 && items && byte === CLOSE_BRACKET) {
        if (items.length % 2 === 1) items.push(lastEnd);
        items = undefined;
      }
      depth -= 1;
      if (depth === 0 && regular) {
        if (byte !== CLOSE_BRACE) regular = false;
        else if (state === VALUE || state === COLON_NEXT || (state === KEY && members.length > 0)) regular = false;
        else {
          endMember();
          close = index;
        }
      }
    }
    lastEnd = index + 1;
  }
  if (!regular || close === -1 || depth !== 0) return { shape: "ok", longStrings };
  return { shape: "ok", longStrings, object: { members, close, longStrings, ...(watch ? { unkeyedItems: unkeyedItems || watchedNext } : {}) } };
}
