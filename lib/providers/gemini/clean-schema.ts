// Gemini function parameters take an OpenAPI subset. Rather than removing keywords known
// to be rejected (a list that is never complete: coding agents' tool schemas use
// whatever JSON Schema offers), only what Gemini's Schema object accepts is kept, and
// the JSON Schema constructs that have an equivalent are converted: local $refs are
// inlined, type arrays become `nullable`, `const` an enum, `oneOf` anyOf.
const KEPT = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "items",
  "minimum",
  "maximum",
]);
const FORMATS: Record<string, Set<string>> = {
  string: new Set(["enum", "date-time"]),
  number: new Set(["float", "double"]),
  integer: new Set(["int32", "int64"]),
};
const MAX_DEPTH = 32;

type Schema = Record<string, unknown>;

export function cleanGeminiSchema(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const root = schema as Schema;
  const definitions = { ...(root.definitions as Schema | undefined), ...(root.$defs as Schema | undefined) };
  return convert(root, definitions, 0);
}

function resolve(node: Schema, definitions: Schema): Schema {
  const ref = node.$ref;
  if (typeof ref !== "string") return node;
  const name = /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref)?.[1];
  const target = name ? definitions[decodeURIComponent(name)] : undefined;
  // Siblings of $ref (a description) win over the definition's.
  return typeof target === "object" && target !== null ? { ...(target as Schema), ...node, $ref: undefined } : { type: "object" };
}

function convert(input: Schema, definitions: Schema, depth: number): Schema {
  // Deeper than any real tool schema: a recursive $ref; stop as a free-form object.
  if (depth > MAX_DEPTH) return { type: "object" };
  const node = resolve(input, definitions);
  const result: Schema = {};
  let type = node.type;
  if (Array.isArray(type)) {
    const types = type.filter((entry) => entry !== "null");
    if (types.length !== type.length) result.nullable = true;
    type = types.length === 1 ? types[0] : undefined;
    if (types.length > 1) result.anyOf = types.map((entry) => ({ type: entry }));
  }
  if (typeof type === "string") result.type = type;
  if (node.const !== undefined) {
    result.enum = [String(node.const)];
    result.type ??= "string";
  }
  for (const [key, value] of Object.entries(node)) {
    if (!KEPT.has(key) || key === "type" || value === undefined) continue;
    switch (key) {
      case "properties":
        if (typeof value === "object" && value !== null) {
          result.properties = Object.fromEntries(Object.entries(value as Schema).map(([name, child]) => [name, convert(asSchema(child), definitions, depth + 1)]));
        }
        break;
      case "items":
        result.items = convert(asSchema(Array.isArray(value) ? value[0] : value), definitions, depth + 1);
        break;
      case "anyOf":
        if (Array.isArray(value)) result.anyOf = value.map((child) => convert(asSchema(child), definitions, depth + 1));
        break;
      case "enum":
        // Gemini enums are strings.
        if (Array.isArray(value)) {
          result.enum = value.filter((entry) => entry !== null).map(String);
          result.type = "string";
        }
        break;
      case "format":
        if (typeof value === "string" && FORMATS[String(result.type)]?.has(value)) result.format = value;
        break;
      case "required":
        if (Array.isArray(value)) result.required = value.filter((name) => typeof name === "string");
        break;
      default:
        result[key] = value;
    }
  }
  if (Array.isArray(node.oneOf) && !result.anyOf) result.anyOf = node.oneOf.map((child) => convert(asSchema(child), definitions, depth + 1));
  if (Array.isArray(node.allOf) && node.allOf.length > 0) {
    // allOf: the parts merged (properties and required together), as far as Gemini can say it.
    for (const part of node.allOf.map((child) => convert(asSchema(child), definitions, depth + 1))) {
      result.type ??= part.type;
      if (part.properties) result.properties = { ...(result.properties as Schema), ...(part.properties as Schema) };
      if (part.required) result.required = [...new Set([...((result.required as string[]) ?? []), ...(part.required as string[])])];
      if (part.description && !result.description) result.description = part.description;
    }
  }
  if (result.required && result.properties) {
    const names = new Set(Object.keys(result.properties as Schema));
    result.required = (result.required as string[]).filter((name) => names.has(name));
  } else if (result.required && !result.properties) {
    delete result.required;
  }
  return result;
}

function asSchema(value: unknown): Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Schema) : {};
}

/** Gemini rejects an OBJECT with no properties: such parameters are omitted. */
export function isEmptyObjectSchema(schema: Record<string, unknown> | undefined): boolean {
  if (!schema) return true;
  const properties = schema.properties as Record<string, unknown> | undefined;
  return String(schema.type ?? "object").toLowerCase() === "object" && (!properties || Object.keys(properties).length === 0);
}
