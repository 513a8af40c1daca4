import { isUtf8 } from "node:buffer";
import { setImmediate as nextTurn } from "node:timers/promises";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { JSON_LIMITS, jsonShapeError, measureJsonText, type JsonShapeLimits } from "@/lib/canonical/json-shape";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/canonical/api-types";

/** Bodies past this size let other requests in between the stages of their parse. */
const YIELD_ABOVE_BYTES = 1024 * 1024;

const invalid = (message: string, code = "invalid_json") => new GatewayError("invalid_request", message, { code });

/** The body as a JSON object: UTF-8, within the size and shape limits (json-shape.ts), and an object at the top. */
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
  const start = checkJsonText(body, JSON_LIMITS);
  await nextTurn();
  const value = parseChecked(body, start);
  await nextTurn();
  return value;
}

export function parseJsonObject(body: Buffer, limits: JsonShapeLimits = JSON_LIMITS): Record<string, unknown> {
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
  const refusal = jsonShapeError(measureJsonText(body, start, limits), "The JSON body", limits);
  if (refusal) throw refusal;
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
