import { jsonShapeError, measureJsonString } from "./json-shape";

// JSON helpers shared by every format and provider.

/** JSON.parse that answers undefined instead of throwing (upstream bytes are untrusted). */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** JSON text from a client (a tool's result) parsed, or undefined for text that is not JSON or holds more than JSON may (json-shape.ts). */
export function safeClientJson(text: string): unknown {
  return measureJsonString(text) === "ok" ? safeJson(text) : undefined;
}

/**
 * Tool-call arguments as the object Anthropic and Gemini need: non-JSON becomes `{}`, a
 * non-object is wrapped. Arguments are JSON inside a string, which the body's limits do not
 * see: they are held to the same ones, or refused.
 */
export function toolArgumentsObject(argumentsText: string): Record<string, unknown> {
  const refusal = jsonShapeError(measureJsonString(argumentsText), "The JSON of a tool call's arguments");
  if (refusal) throw refusal;
  const value = safeJson(argumentsText || "{}");
  if (value === undefined) return {};
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}
