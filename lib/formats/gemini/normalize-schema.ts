// Gemini tool schemas are an OpenAPI subset with upper-case type names (`OBJECT`,
// `STRING`), which OpenAI and Anthropic upstreams reject. This turns them into plain
// JSON Schema; the reverse direction lives in lib/providers/gemini/clean-schema.ts.

export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type" && typeof value === "string") {
      result.type = value.toLowerCase();
    } else if (key === "properties" && typeof value === "object" && value !== null) {
      result.properties = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, toJsonSchema(child)]));
    } else if (key === "nullable" && value === true) {
      result.nullable = true;
    } else if (key === "enum" || key === "required") {
      result[key] = value;
    } else {
      result[key] = toJsonSchema(value);
    }
  }
  return result;
}
