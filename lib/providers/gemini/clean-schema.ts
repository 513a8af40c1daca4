// Gemini function parameters take an OpenAPI subset: keywords outside it (seen from
// JSON Schema producers such as zod-to-json-schema) make the whole request fail.
const UNSUPPORTED = new Set([
  "$schema", "$id", "$ref", "$defs", "definitions", "additionalProperties", "default", "examples",
  "patternProperties", "unevaluatedProperties", "const", "exclusiveMinimum", "exclusiveMaximum", "strict",
]);
const FORMATS = new Set(["enum", "date-time"]);

export function cleanGeminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanGeminiSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (UNSUPPORTED.has(key)) continue;
    if (key === "format" && (typeof value !== "string" || !FORMATS.has(value))) continue;
    if (key === "type" && Array.isArray(value)) {
      // ["string","null"] -> type string, nullable
      const types = value.filter((type) => type !== "null");
      result.type = types[0] ?? "string";
      if (types.length !== value.length) result.nullable = true;
      continue;
    }
    if (key === "properties" && typeof value === "object" && value !== null) {
      result.properties = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, cleanGeminiSchema(child)]));
      continue;
    }
    result[key] = key === "enum" || key === "required" ? value : cleanGeminiSchema(value);
  }
  return result;
}

/** Gemini rejects an OBJECT with no properties: such parameters are omitted. */
export function isEmptyObjectSchema(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return true;
  const properties = schema.properties as Record<string, unknown> | undefined;
  return String(schema.type ?? "object").toLowerCase() === "object" && (!properties || Object.keys(properties).length === 0);
}
