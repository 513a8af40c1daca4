import { env } from "@/lib/env";
import { GatewayError } from "./gateway-error";
import { scanJson, type JsonShape, type JsonShapeLimits } from "./json-scan";

export type { JsonShape, JsonShapeLimits } from "./json-scan";

// What JSON from a client may hold, whatever its size in bytes: a body, and JSON carried
// inside a string of it (tool-call arguments). A 1 MB coding-agent turn (2,000 messages with
// their tool calls and results) holds about 20,000 objects and arrays and 50,000 values;
// validating and converting each costs microseconds, so hundreds of thousands of tiny ones
// would hold the event loop that serves everyone for seconds, however small the body.

/** Deeper than any real request (tool schemas included); deeper input would exhaust recursive walkers (JSON.stringify among them). */
export const MAX_JSON_DEPTH = 128;

export const JSON_LIMITS: JsonShapeLimits = { depth: MAX_JSON_DEPTH, objects: env.MAX_JSON_OBJECTS, values: env.MAX_JSON_VALUES };

/**
 * The nesting, objects and arrays, and values of a JSON text, counted in one pass over its
 * bytes (json-scan.ts: strings skipped, a fraction of what JSON.parse costs) and stopped at
 * the first limit passed. Values are the root, one per comma, and the first item of each
 * container that has one. Invalid JSON may be counted wrong; JSON.parse refuses it next.
 */
export function measureJsonText(text: Uint8Array, start: number, limits: JsonShapeLimits): JsonShape {
  return scanJson(text, start, limits).shape;
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
