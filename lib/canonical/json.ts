// JSON helpers shared by every format and provider.

/** JSON.parse that answers undefined instead of throwing (upstream bytes are untrusted). */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Tool-call arguments as the object Anthropic and Gemini need: non-JSON becomes `{}`, a non-object is wrapped. */
export function toolArgumentsObject(argumentsText: string): Record<string, unknown> {
  const value = safeJson(argumentsText || "{}");
  if (value === undefined) return {};
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
}
