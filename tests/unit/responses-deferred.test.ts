import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { JsonBody } from "@/lib/canonical/json-body";
import { JSON_LIMITS } from "@/lib/canonical/json-shape";
import { scanJson } from "@/lib/canonical/json-scan";
import { parseResponsesBody, parseResponsesDeferred } from "@/lib/formats/responses/parse-request";

// A /v1/responses body read for a relay: its input left unparsed unless an item may be
// one the handler reads before relaying (a compaction trigger, the gateway's sealed
// compaction, an item reference), however that item is written.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "codex-turn.json"), "utf8")) as { request: Record<string, any> };

const read = (text: string) => {
  const bytes = Buffer.from(text);
  return new JsonBody(bytes, 0, scanJson(bytes, 0, JSON_LIMITS).object);
};
const withItem = (item: string) => JSON.stringify({ ...fixture.request, input: [...fixture.request.input, { marker: true }] }).replace('{"marker":true}', item);

describe("a Responses body read for a relay", () => {
  test("Codex's turn is deferred, and what it defers reads back as the whole parse", () => {
    const text = JSON.stringify(fixture.request);
    const deferred = parseResponsesDeferred(read(text));
    assert.ok(deferred);
    assert.equal(deferred.body.model, fixture.request.model);
    assert.deepEqual(JSON.parse(JSON.stringify(deferred.body)), JSON.parse(JSON.stringify(parseResponsesBody(JSON.parse(text)))));
  });

  test("OpenAI's own compaction item and ordinary items written any way are deferred", () => {
    for (const item of [
      '{"type":"compaction","encrypted_content":"gAAAAABopaque"}',
      '{"role":"user","content":"hi"}',
      '{ "type": "message", "role": "user", "content": "caf\\u00e9 <\\u003c>" }',
      '{"type":"function_call_output","call_id":"c","output":"compaction_trigger is a word here"}',
    ]) {
      assert.ok(parseResponsesDeferred(read(withItem(item))), item);
    }
  });

  test("an item the handler reads first is parsed whole, however it is written", () => {
    for (const item of [
      '{"type":"compaction_trigger"}',
      '{"type":"item_reference","id":"msg_1"}',
      '{"type":"compaction","encrypted_content":"gwcompact1.abc"}',
      '{"encrypted_content":"gwcompact1.abc","type":"compaction"}',
      '{"type":"compaction","encrypted_content":"\\u0067wcompact1.abc"}',
      '{"type":"compaction\\u005ftrigger"}',
      '{ "type": "compaction_trigger" }',
      '{"id":"x","type":"item_reference"}',
      '{"type":"item\\u005freference","id":"msg_1"}',
    ]) {
      assert.equal(parseResponsesDeferred(read(withItem(item))), undefined, item);
    }
  });

  test("a short input, an input given as text, or no input is not deferred", () => {
    assert.equal(parseResponsesDeferred(read(JSON.stringify({ model: "m", input: "hello" }))), undefined);
    assert.equal(parseResponsesDeferred(read(JSON.stringify({ model: "m", input: [] }))), undefined);
    assert.equal(parseResponsesDeferred(read(JSON.stringify({ model: "m" }))), undefined);
  });
});
