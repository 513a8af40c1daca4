import { isUtf8 } from "node:buffer";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/http/api-types";

/** Deeper than any real request (tool schemas included); deeper input would exhaust recursive walkers. */
export const MAX_JSON_DEPTH = 128;

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
  if (body.length > MAX_JSON_DEPTH && nestingDepth(body, start) > MAX_JSON_DEPTH) {
    throw invalid(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, "json_too_deep");
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8", start));
  } catch {
    throw invalid("We could not parse the JSON body of your request: it is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("The request body must be a JSON object.", "invalid_body");
  }
  return value as Record<string, unknown>;
}

/** The deepest bracket nesting in JSON text, strings skipped; one pass over the bytes. */
function nestingDepth(body: Buffer, start: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = start; index < body.length; index += 1) {
    const byte = body[index]!;
    if (inString) {
      if (byte === 0x5c) index += 1; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (depth > MAX_JSON_DEPTH) return depth;
    } else if (byte === 0x7d || byte === 0x5d) depth -= 1;
  }
  return deepest;
}
