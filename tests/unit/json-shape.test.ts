import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { measureJsonText } from "@/lib/canonical/json-shape";

// The shape a body is refused for is counted on its bytes, before JSON.parse: it must agree
// with the parsed value for any JSON, spelled with any spacing and any strings (braces,
// commas, quotes and backslashes in them count for nothing).

/** Depth, objects and arrays, and values of a parsed JSON value. */
function shapeOf(value: unknown, depth = 1): { depth: number; objects: number; values: number } {
  if (value === null || typeof value !== "object") return { depth: 0, objects: 0, values: 1 };
  const shape = { depth, objects: 1, values: 1 };
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const inner = shapeOf(child, depth + 1);
    shape.depth = Math.max(shape.depth, inner.depth);
    shape.objects += inner.objects;
    shape.values += inner.values;
  }
  return shape;
}

const tricky = fc.oneof(fc.string(), fc.constantFrom('{"a":[1,2]}', "\\", '\\"', "[,,{", "é,ü{"));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 2 }), tricky, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 5 }),
  object: fc.dictionary(tricky, tie("value"), { maxKeys: 5, noNullPrototype: true }),
})).value;
const spacing = fc.constantFrom<undefined | number | string>(undefined, 0, 2, "\t", " \r\n ");
const huge = 1e9;

describe("the shape of a JSON text, counted on its bytes", () => {
  test("is the parsed value's: each limit holds at its count and is passed one below it", () => {
    fc.assert(
      fc.property(json, spacing, (value, space) => {
        const bytes = Buffer.from(JSON.stringify(value, null, space));
        const shape = shapeOf(value);
        const context = `${bytes.toString()} ${JSON.stringify(shape)}`;
        assert.equal(measureJsonText(bytes, 0, { depth: shape.depth, objects: shape.objects, values: shape.values }), "ok", context);
        if (shape.depth > 0) assert.equal(measureJsonText(bytes, 0, { depth: shape.depth - 1, objects: huge, values: huge }), "too-deep", context);
        if (shape.objects > 0) assert.equal(measureJsonText(bytes, 0, { depth: huge, objects: shape.objects - 1, values: huge }), "too-many-objects", context);
        if (shape.values > 1) assert.equal(measureJsonText(bytes, 0, { depth: huge, objects: huge, values: shape.values - 1 }), "too-many-values", context);
      }),
      { numRuns: 3000 },
    );
  });
});
