// Gemini's API accepts every field in snake_case as well as camelCase (the Python SDK
// sends `function_declarations`, `parameters_json_schema`, `system_instruction`...). The
// request is read in camelCase; names inside caller data (function arguments and
// responses, JSON schemas, labels) are left exactly as sent.
const OPAQUE = new Set([
  "args",
  "response",
  "parameters",
  "parametersJsonSchema",
  "responseSchema",
  "responseJsonSchema",
  "responseJsonSchemaOrdering",
  "labels",
  "metadata",
  "properties",
]);

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** A Gemini request body with its own field names in camelCase, caller data untouched. */
export function camelizeGeminiRequest(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeGeminiRequest);
  if (typeof value !== "object" || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const name = camel(key);
    // When both spellings are sent, the camelCase one wins, as it does upstream.
    if (name !== key && name in (value as Record<string, unknown>)) continue;
    result[name] = OPAQUE.has(name) ? child : camelizeGeminiRequest(child);
  }
  return result;
}
