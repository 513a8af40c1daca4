import { env } from "@/lib/env";
import { GatewayError } from "./gateway-error";

// What JSON from a client may hold, whatever its size in bytes: a body, and JSON carried
// inside a string of it (tool-call arguments). A 1 MB coding-agent turn (2,000 messages with
// their tool calls and results) holds about 20,000 objects and arrays and 50,000 values;
// validating and converting each costs microseconds, so hundreds of thousands of tiny ones
// would hold the event loop that serves everyone for seconds, however small the body.

/** Deeper than any real request (tool schemas included); deeper input would exhaust recursive walkers (JSON.stringify among them). */
export const MAX_JSON_DEPTH = 128;

export interface JsonShapeLimits {
  depth: number;
  objects: number;
  values: number;
}

export const JSON_LIMITS: JsonShapeLimits = { depth: MAX_JSON_DEPTH, objects: env.MAX_JSON_OBJECTS, values: env.MAX_JSON_VALUES };

export type JsonShape = "ok" | "too-deep" | "too-many-objects" | "too-many-values";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The nesting, objects and arrays, and values of a JSON text, counted in one pass over its
 * bytes (about a millisecond a megabyte, a fraction of what JSON.parse costs) and stopped at
 * the first limit passed. Strings are skipped: braces and commas in code count for nothing.
 * Values are the root, one per comma, and the first item of each container that has one.
 * Invalid JSON may be counted wrong; JSON.parse refuses it next.
 */
export function measureJsonText(text: Uint8Array, start: number, limits: JsonShapeLimits): JsonShape {
  let depth = 0;
  let objects = 0;
  let values = 1;
  // Just after an opening brace or bracket: the next byte says whether the container holds an item.
  let opened = false;
  for (let index = start; index < text.length; index++) {
    const byte = text[index]!;
    if (byte === SPACE || byte === LINE_FEED || byte === CARRIAGE_RETURN || byte === TAB) continue;
    if (opened) {
      opened = false;
      if (byte !== CLOSE_BRACE && byte !== CLOSE_BRACKET && ++values > limits.values) return "too-many-values";
    }
    if (byte === QUOTE) {
      for (index++; index < text.length; index++) {
        const inner = text[index]!;
        if (inner === BACKSLASH) index++;
        else if (inner === QUOTE) break;
      }
    } else if (byte === COMMA) {
      if (++values > limits.values) return "too-many-values";
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > limits.depth) return "too-deep";
      if (++objects > limits.objects) return "too-many-objects";
      opened = true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return "ok";
}

/** The client's error for JSON past a limit (`subject` names it: "The JSON body"), or undefined within them. */
export function jsonShapeError(shape: JsonShape, subject: string, limits: JsonShapeLimits = JSON_LIMITS): GatewayError | undefined {
  const count = (limit: number) => limit.toLocaleString("en-US");
  const tooMany = (what: string) => new GatewayError("request_too_large", `${subject} holds more than ${what}; split the request.`, { code: "too_many_json_values" });
  switch (shape) {
    case "ok":
      return undefined;
    case "too-deep":
      return new GatewayError("invalid_request", `${subject} is nested more than ${limits.depth} levels deep.`, { code: "json_too_deep" });
    case "too-many-objects":
      return tooMany(`${count(limits.objects)} objects and arrays (messages, content parts, tool calls)`);
    case "too-many-values":
      return tooMany(`${count(limits.values)} values (strings, numbers, objects and arrays)`);
  }
}

/** The shape of JSON inside a string; a text shorter than the depth limit cannot pass any limit. */
export function measureJsonString(text: string, limits: JsonShapeLimits = JSON_LIMITS): JsonShape {
  return text.length <= limits.depth ? "ok" : measureJsonText(Buffer.from(text), 0, limits);
}
