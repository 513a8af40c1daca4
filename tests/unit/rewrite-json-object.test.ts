import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { isForOneUse } from "@/lib/canonical/one-use-bytes";
import { rewriteJsonObject } from "@/lib/canonical/rewrite-json-object";

// Any JSON object, spelled with any spacing, and keys that collide with the ones set.
const key = fc.oneof(fc.constantFrom("model", "stream_options", "messages", "m\u00f6del", "mod\\el", 'mo"del'), fc.string());
const body = fc.dictionary(key, fc.jsonValue({ maxDepth: 4 }), { noNullPrototype: true });
const spacing = fc.constantFrom<undefined | number | string>(undefined, 0, 1, 2, "\t", " \n ");
const changes = fc.record({ model: fc.string(), stream_options: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { noNullPrototype: true }) }, { requiredKeys: [] });

describe("a relayed JSON body with some members rewritten", () => {
  test("reads back as the object with those members set, for any object and spacing", () => {
    fc.assert(
      fc.property(body, spacing, changes, (object, space, set) => {
        const bytes = Buffer.from(JSON.stringify(object, null, space));
        const rewritten = rewriteJsonObject(bytes, set);
        assert.ok(rewritten, bytes.toString());
        assert.deepEqual(JSON.parse(rewritten.toString("utf8")), JSON.parse(JSON.stringify({ ...object, ...set })));
      }),
      { numRuns: 3000 },
    );
  });

  test("members taken out (Bedrock's body has no model or stream) read back as the object without them, for any object and spacing", () => {
    const removable = fc.subarray(["model", "stream", "messages", "mod\\el"]);
    fc.assert(
      fc.property(body, spacing, removable, fc.boolean(), (object, space, remove, add) => {
        const bytes = Buffer.from(JSON.stringify(object, null, space));
        const set = add ? { anthropic_version: "bedrock-2023-05-31" } : {};
        const rewritten = rewriteJsonObject(bytes, { ...set, ...Object.fromEntries(remove.map((name) => [name, undefined])) });
        assert.ok(rewritten, bytes.toString());
        const expected = JSON.parse(JSON.stringify({ ...object, ...set }));
        for (const name of remove) delete expected[name];
        assert.deepEqual(JSON.parse(rewritten.toString("utf8")), expected);
      }),
      { numRuns: 3000 },
    );
    assert.equal(
      rewriteJsonObject(Buffer.from('{"model":"m", "max_tokens":5,\n "stream":true}'), { anthropic_version: "v", model: undefined, stream: undefined })?.toString(),
      '{"max_tokens":5,"anthropic_version":"v"}',
    );
  });

  test("every byte it does not set is the client's: setting the values already there changes nothing", () => {
    fc.assert(
      fc.property(body, spacing, (object, space) => {
        const bytes = Buffer.from(JSON.stringify(object, null, space));
        // Scalars, which JSON.stringify spells the same at any spacing.
        const same = Object.fromEntries(
          Object.entries(object).filter(([name, value]) => (name === "model" || name === "messages") && (typeof value !== "object" || value === null)),
        );
        assert.deepEqual(rewriteJsonObject(bytes, same), bytes);
      }),
      { numRuns: 2000 },
    );
  });

  test("the client's own spelling survives: numbers, escapes, key order, spacing", () => {
    const sent = '{ "temperature": 1.0, "model" : "gpt-4o",\n  "messages": [{"role":"user","content":"caf\\u00e9 \\"quoted\\" \u2713"}], "seed": 1e3 }';
    const rewritten = rewriteJsonObject(Buffer.from(sent), { model: "gpt-4o-2024-08-06", stream_options: { include_usage: true } });
    assert.equal(
      rewritten?.toString("utf8"),
      '{ "temperature": 1.0, "model" : "gpt-4o-2024-08-06",\n  "messages": [{"role":"user","content":"caf\\u00e9 \\"quoted\\" \u2713"}], "seed": 1e3 ,"stream_options":{"include_usage":true}}',
    );
  });

  test("members set to undefined are removed, any of them, wherever they stand, with the rest as sent", () => {
    const removable = fc.record({ model: fc.constant(undefined), stream: fc.constant(undefined), anthropic_version: fc.string() }, { requiredKeys: [] });
    fc.assert(
      fc.property(body, spacing, removable, (object, space, set) => {
        const bytes = Buffer.from(JSON.stringify(object, null, space));
        const rewritten = rewriteJsonObject(bytes, set);
        assert.ok(rewritten, bytes.toString());
        assert.deepEqual(JSON.parse(rewritten.toString("utf8")), JSON.parse(JSON.stringify({ ...object, ...set })));
      }),
      { numRuns: 3000 },
    );
    const sent = '{ "model" : "claude-x",\n "messages": [], "stream": true }';
    assert.equal(rewriteJsonObject(Buffer.from(sent), { model: undefined })?.toString(), '{ "messages": [], "stream": true }');
    assert.equal(
      rewriteJsonObject(Buffer.from(sent), { stream: undefined, anthropic_version: "v" })?.toString(),
      '{ "model" : "claude-x",\n "messages": [] ,"anthropic_version":"v"}',
    );
    assert.equal(rewriteJsonObject(Buffer.from('{"model":"a"}'), { model: undefined, stream: true })?.toString(), '{"stream":true}');
  });

  test("a member already written as it is to be leaves the client's bytes themselves, uncopied; one written otherwise is rewritten", () => {
    const sent = Buffer.from('{"model":"gpt-x","stream":true,"input":[{"type":"message","content":"h\u00e9"}]}');
    assert.equal(rewriteJsonObject(sent, { model: "gpt-x" }), sent);
    assert.equal(rewriteJsonObject(sent, { model: "gpt-x", stream: true }), sent);
    assert.equal(rewriteJsonObject(Buffer.from('{"model":"caf\u00e9"}'), { model: "café" })?.toString(), '{"model":"café"}');
    assert.equal(rewriteJsonObject(Buffer.from('{"model":"café"}'), { model: "café" })?.toString(), '{"model":"café"}');
    assert.equal(rewriteJsonObject(sent, { model: "gpt-y" })?.toString(), sent.toString().replace("gpt-x", "gpt-y"));
    assert.equal(rewriteJsonObject(Buffer.from('{"stream":1}'), { stream: true })?.toString(), '{"stream":true}');
  });

  test("bodies it cannot rewrite exactly are left to the caller: a key given twice, a byte order mark", () => {
    assert.equal(rewriteJsonObject(Buffer.from('{"model":"a","model":"b"}'), { model: "c" }), undefined);
    assert.equal(rewriteJsonObject(Buffer.from('{"model":"a","mod\\u0065l":"b"}'), { model: "c" }), undefined);
    assert.equal(rewriteJsonObject(Buffer.from('\ufeff{"model":"a"}'), { model: "c" }), undefined);
    assert.deepEqual(JSON.parse(rewriteJsonObject(Buffer.from("{}"), { model: "c" })!.toString()), { model: "c" });
  });

  test("a large body rewritten is a copy made for one call, let go once written; the client's own bytes are not", () => {
    const large = Buffer.from(JSON.stringify({ model: "a", messages: [{ role: "user", content: "x".repeat(100_000) }] }));
    const rewritten = rewriteJsonObject(large, { model: "b" })!;
    assert.notEqual(rewritten, large);
    assert.equal(isForOneUse(rewritten), true);
    // Nothing to change: the client's bytes themselves, which the request keeps anyway.
    assert.equal(rewriteJsonObject(large, { model: "a" }), large);
    assert.equal(isForOneUse(large), false);
    // A small body is not worth the slower write.
    assert.equal(isForOneUse(rewriteJsonObject(Buffer.from('{"model":"a"}'), { model: "b" })), false);
  });
});
