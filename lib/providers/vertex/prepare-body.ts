import { withJsonChanges } from "@/lib/canonical/rewrite-json-object";
import { safeJson } from "@/lib/canonical/json";
import type { OutgoingRequest } from "@/lib/providers/transport";

// The bodies of the two wire formats as Vertex takes them.

/** Claude on Vertex reads the API version from the body, in its own spelling. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

type Body = OutgoingRequest["body"];

/**
 * Anthropic's Messages body for rawPredict/streamRawPredict: the model is in the URL, not
 * the body (the count-tokens endpoint alone keeps it, as it names no model in its URL),
 * and `anthropic_version` is added. `stream` stays: streamRawPredict takes it. A relayed
 * body keeps every other byte as the client sent it.
 */
export function vertexAnthropicBody(body: Body, keepModel: boolean): Body {
  if (typeof body !== "string" && !Buffer.isBuffer(body)) return body;
  const changes = { ...(keepModel ? {} : { model: undefined }), anthropic_version: VERTEX_ANTHROPIC_VERSION };
  return withJsonChanges(Buffer.isBuffer(body) ? body : Buffer.from(body), changes) ?? body;
}

/**
 * Gemini's bodies for Vertex: every content has a role there (the Gemini API lets a
 * single turn leave it out, Vertex refuses it), and countTokens takes the request's
 * fields at the top level rather than Gemini's `generateContentRequest` wrapper.
 */
export function vertexGeminiBody(body: Body, method: string): Body {
  if (typeof body !== "string" && !Buffer.isBuffer(body)) return body;
  const parsed = safeJson(Buffer.isBuffer(body) ? body.toString("utf8") : body);
  if (!isObject(parsed)) return body;
  let json = parsed;
  let changed = false;
  if (method === "countTokens" && isObject(json.generateContentRequest)) {
    const { contents, systemInstruction, tools, generationConfig } = json.generateContentRequest;
    json = { contents, systemInstruction, tools, generationConfig };
    changed = true;
  }
  if (Array.isArray(json.contents) && json.contents.some((content) => isObject(content) && typeof content.role !== "string")) {
    json = { ...json, contents: json.contents.map((content) => (isObject(content) && typeof content.role !== "string" ? { ...content, role: "user" } : content)) };
    changed = true;
  }
  return changed ? JSON.stringify(json) : body;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
