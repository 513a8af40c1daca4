import { isUtf8 } from "node:buffer";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/canonical/api-types";

/** Deeper than any real request (tool schemas included); deeper input would exhaust recursive walkers. */
export const MAX_JSON_DEPTH = 128;
/**
 * Objects and arrays one body may hold. A 1 MB coding-agent turn (2,000 messages with their
 * tool calls and results) holds about 20,000; a body of hundreds of thousands of tiny
 * messages would cost seconds of validation and conversion on the event loop that serves everyone.
 */
export const MAX_JSON_CONTAINERS = 100_000;

const invalid = (message: string, code = "invalid_json") => new GatewayError("invalid_request", message, { code });

/** The body as a JSON object: UTF-8, within the size and nesting limits, and an object at the top. */
export async function readJsonBody(request: ApiRequest): Promise<Record<string, unknown>> {
  const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers.get("content-type") ?? "")?.[1]?.toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8") {
    throw new GatewayError("unsupported_media_type", `The body must be UTF-8 JSON; charset=${charset.slice(0, 40)} is not accepted.`, {
      code: "unsupported_charset",
    });
  }
  return parseJsonObject(await request.body(env.MAX_BODY_BYTES));
}

export function parseJsonObject(body: Buffer): Record<string, unknown> {
  if (body.length === 0) throw invalid("The request body is empty; a JSON object is required.");
  if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
    throw invalid("The body is UTF-16; send JSON encoded as UTF-8.", "invalid_encoding");
  }
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  if (!isUtf8(body)) throw invalid("The body is not valid UTF-8; send JSON encoded as UTF-8.", "invalid_encoding");
  // Refused before JSON.parse, which alone takes a third of a second for 600,000 tiny objects.
  if (holdsMoreContainers(body, start, MAX_JSON_CONTAINERS)) throw tooManyContainers();
  let value: unknown;
  try {
    // V8 parses any depth without recursion; what comes after (validation, conversion) would not.
    value = JSON.parse(body.toString("utf8", start));
  } catch {
    throw invalid("We could not parse the JSON body of your request: it is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("The request body must be a JSON object.", "invalid_body");
  }
  const shape = measure(value, MAX_JSON_DEPTH, MAX_JSON_CONTAINERS);
  if (shape === "too-deep") throw invalid(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, "json_too_deep");
  if (shape === "too-many") throw tooManyContainers();
  return value as Record<string, unknown>;
}

function tooManyContainers(): GatewayError {
  return new GatewayError(
    "request_too_large",
    `The JSON body holds more than ${MAX_JSON_CONTAINERS.toLocaleString("en-US")} objects and arrays (messages, content parts, tool calls); split the request.`,
    {
      code: "too_many_json_values",
    },
  );
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the JSON text opens more than `limit` objects and arrays, without parsing it. The
 * common case costs two native searches that stop at the limit: fewer brace and bracket bytes
 * than the limit in the whole text means fewer containers. Only a text with more (braces in
 * strings count there: code in tool results) is scanned byte by byte, strings skipped.
 */
function holdsMoreContainers(text: Buffer, start: number, limit: number): boolean {
  let bytes = 0;
  for (const byte of [OPEN_BRACE, OPEN_BRACKET]) {
    for (let at = text.indexOf(byte, start); at !== -1 && bytes <= limit; at = text.indexOf(byte, at + 1)) bytes += 1;
  }
  if (bytes <= limit) return false;
  let containers = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const byte = text[index]!;
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if ((byte === OPEN_BRACE || byte === OPEN_BRACKET) && ++containers > limit) return true;
  }
  return false;
}

/**
 * Whether parsed JSON nests objects and arrays deeper than `depthLimit`, or holds more than
 * `countLimit` of them, walked without recursion. It visits containers only (a long string
 * is one step), so it costs far less than scanning the text of a large agent request.
 */
function measure(root: object, depthLimit: number, countLimit: number): "ok" | "too-deep" | "too-many" {
  const nodes: object[] = [root];
  const depths: number[] = [1];
  let count = 1;
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > depthLimit) return "too-deep";
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") {
        if (++count > countLimit) return "too-many";
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return "ok";
}
