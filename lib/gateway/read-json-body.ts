import { isUtf8 } from "node:buffer";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/canonical/api-types";

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
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    throw invalid(`The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, "json_too_deep");
  }
  return value as Record<string, unknown>;
}

/**
 * Whether parsed JSON nests objects and arrays deeper than `limit`, walked without
 * recursion. It visits containers only (a long string is one step), so it costs far less
 * than scanning the text of a large agent request.
 */
function nestedDeeperThan(root: object, limit: number): boolean {
  const nodes: object[] = [root];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === "object") {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
