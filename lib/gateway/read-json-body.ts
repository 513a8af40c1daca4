import { isUtf8 } from "node:buffer";
import { setImmediate as nextTurn } from "node:timers/promises";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/canonical/api-types";

/** Deeper than any real request (tool schemas included); deeper input would exhaust recursive walkers. */
export const MAX_JSON_DEPTH = 128;

/**
 * What one body may hold. A 1 MB coding-agent turn (2,000 messages with their tool calls and
 * results) holds about 20,000 objects and arrays and 50,000 values; validating and converting
 * each costs microseconds, so hundreds of thousands of tiny ones would hold the event loop that
 * serves everyone for seconds, however small the body.
 */
export interface JsonShapeLimits {
  depth: number;
  objects: number;
  values: number;
}

const DEFAULT_LIMITS: JsonShapeLimits = { depth: MAX_JSON_DEPTH, objects: env.MAX_JSON_OBJECTS, values: env.MAX_JSON_VALUES };

/** Bodies past this size let other requests in between the stages of their parse. */
const YIELD_ABOVE_BYTES = 1024 * 1024;

const invalid = (message: string, code = "invalid_json") => new GatewayError("invalid_request", message, { code });

/** The body as a JSON object: UTF-8, within the size and shape limits, and an object at the top. */
export async function readJsonBody(request: ApiRequest): Promise<Record<string, unknown>> {
  const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers.get("content-type") ?? "")?.[1]?.toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8") {
    throw new GatewayError("unsupported_media_type", `The body must be UTF-8 JSON; charset=${charset.slice(0, 40)} is not accepted.`, {
      code: "unsupported_charset",
    });
  }
  const body = await request.body(env.MAX_BODY_BYTES);
  if (body.length <= YIELD_ABOVE_BYTES) return parseJsonObject(body);
  // Checked, parsed and validated in separate turns: a health check waits for one stage, not all.
  const start = checkJsonText(body, DEFAULT_LIMITS);
  await nextTurn();
  const value = parseChecked(body, start);
  await nextTurn();
  return value;
}

export function parseJsonObject(body: Buffer, limits: JsonShapeLimits = DEFAULT_LIMITS): Record<string, unknown> {
  return parseChecked(body, checkJsonText(body, limits));
}

/** Refuses a body that is empty, not UTF-8 or past the shape limits; answers where its JSON starts (after a BOM). */
function checkJsonText(body: Buffer, limits: JsonShapeLimits): number {
  if (body.length === 0) throw invalid("The request body is empty; a JSON object is required.");
  if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
    throw invalid("The body is UTF-16; send JSON encoded as UTF-8.", "invalid_encoding");
  }
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  if (!isUtf8(body)) throw invalid("The body is not valid UTF-8; send JSON encoded as UTF-8.", "invalid_encoding");
  // Measured on the text, before JSON.parse: parsing 600,000 tiny objects alone takes a third of a second.
  const shape = measureJsonText(body, start, limits);
  if (shape === "too-deep") throw invalid(`The JSON body is nested more than ${limits.depth} levels deep.`, "json_too_deep");
  if (shape === "too-many-objects") throw tooMany(`${count(limits.objects)} objects and arrays (messages, content parts, tool calls)`);
  if (shape === "too-many-values") throw tooMany(`${count(limits.values)} values (strings, numbers, objects and arrays)`);
  return start;
}

function parseChecked(body: Buffer, start: number): Record<string, unknown> {
  let value: unknown;
  try {
    // V8 parses any depth without recursion; the depth limit is for what comes after.
    value = JSON.parse(body.toString("utf8", start));
  } catch {
    throw invalid("We could not parse the JSON body of your request: it is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("The request body must be a JSON object.", "invalid_body");
  }
  return value as Record<string, unknown>;
}

const count = (limit: number) => limit.toLocaleString("en-US");

function tooMany(what: string): GatewayError {
  return new GatewayError("request_too_large", `The JSON body holds more than ${what}; split the request.`, { code: "too_many_json_values" });
}

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
export function measureJsonText(text: Uint8Array, start: number, limits: JsonShapeLimits): "ok" | "too-deep" | "too-many-objects" | "too-many-values" {
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
