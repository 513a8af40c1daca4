import { isUtf8 } from "node:buffer";
import { setImmediate as nextTurn } from "node:timers/promises";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { JsonBody } from "@/lib/canonical/json-body";
import { JSON_LIMITS, jsonShapeError, type JsonShapeLimits } from "@/lib/canonical/json-shape";
import { type ItemKeyWatch, scanJson } from "@/lib/canonical/json-scan";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/canonical/api-types";

/** Bodies past this size let other requests in between the stages of their parse. */
const YIELD_ABOVE_BYTES = 1024 * 1024;

/**
 * Requests past this size (an agent's turn: its whole conversation, tools and all) are
 * relayed without parsing the conversation (deferred-chat.ts); smaller ones are validated
 * whole, which costs them next to nothing.
 */
export const DEFER_CONVERSATION_ABOVE_BYTES = 32 * 1024;

const invalid = (message: string, code = "invalid_json") => new GatewayError("invalid_request", message, { code });

/** The body as a JSON object: UTF-8, within the size and shape limits (json-shape.ts), and an object at the top. */
export async function readJsonBody(request: ApiRequest): Promise<Record<string, unknown>> {
  const body = await readJsonRequest(request);
  if (body.bytes.length > YIELD_ABOVE_BYTES) await nextTurn();
  const value = body.value();
  if (body.bytes.length > YIELD_ABOVE_BYTES) await nextTurn();
  return value;
}

/**
 * The body read and checked (UTF-8, size and shape limits) in one scan that also finds
 * where its members lie, not yet parsed: a handler parses what it needs (json-body.ts).
 */
/** `watch`: arrays the scan checks for an item key as it reads (json-scan.ts's ItemKeyWatch). */
export async function readJsonRequest(request: ApiRequest, watch?: ItemKeyWatch): Promise<JsonBody> {
  const charset = /;\s*charset="?([^";\s]+)/i.exec(request.headers.get("content-type") ?? "")?.[1]?.toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8") {
    throw new GatewayError("unsupported_media_type", `The body must be UTF-8 JSON; charset=${charset.slice(0, 40)} is not accepted.`, {
      code: "unsupported_charset",
    });
  }
  return checkJsonText(await request.body(env.MAX_BODY_BYTES), JSON_LIMITS, watch);
}

export function parseJsonObject(body: Buffer, limits: JsonShapeLimits = JSON_LIMITS): Record<string, unknown> {
  return checkJsonText(body, limits).value();
}

/** Refuses a body that is empty, not UTF-8 or past the shape limits; the body with where its JSON starts (after a BOM) and its layout. */
function checkJsonText(body: Buffer, limits: JsonShapeLimits, watch?: ItemKeyWatch): JsonBody {
  if (body.length === 0) throw invalid("The request body is empty; a JSON object is required.");
  if ((body[0] === 0xff && body[1] === 0xfe) || (body[0] === 0xfe && body[1] === 0xff)) {
    throw invalid("The body is UTF-16; send JSON encoded as UTF-8.", "invalid_encoding");
  }
  const start = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  if (!isUtf8(body)) throw invalid("The body is not valid UTF-8; send JSON encoded as UTF-8.", "invalid_encoding");
  // Measured on the bytes, before JSON.parse: parsing 600,000 tiny objects alone takes a third of a second.
  const scan = scanJson(body, start, limits, watch);
  const refusal = jsonShapeError(scan.shape, "The JSON body", limits);
  if (refusal) throw refusal;
  return new JsonBody(body, start, scan.object);
}
