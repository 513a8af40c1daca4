import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JsonBody } from "@/lib/canonical/json-body";
import { scanJson } from "@/lib/canonical/json-scan";
import { JSON_LIMITS } from "@/lib/canonical/json-shape";
import { parseChatCompletionDeferred } from "@/lib/formats/openai/parse-request";

// A chat completions turn is relayed without parsing its conversation only when the bytes
// can go up as sent: every tool call names its type (the schema would fill one in).

function deferred(toolCalls: string): boolean {
  const text = `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":${toolCalls}}]}`;
  const bytes = Buffer.from(text);
  return parseChatCompletionDeferred(new JsonBody(bytes, 0, scanJson(bytes, 0, JSON_LIMITS).object)) !== undefined;
}

const call = (fields: string) => `{"id":"c","function":{"name":"f","arguments":"{\\"type\\":1}"}${fields}}`;

describe("chat completions read for a relay", () => {
  test("tool calls that each name their type are relayed as sent", () => {
    assert.equal(deferred(`[${call(',"type":"function"')},${call(' , "type" : "function"')}]`), true);
    assert.equal(deferred("[]"), true);
    assert.equal(deferred("null"), true);
  });

  test("a call without its type, even beside one that names it twice, is parsed whole", () => {
    assert.equal(deferred(`[${call("")}]`), false);
    assert.equal(deferred(`[${call(',"type":"function","type":"function"')},${call("")}]`), false);
  });

  test("a tool_calls member without a value is left to the whole parse, which refuses it", () => {
    assert.equal(deferred(""), false);
    assert.equal(deferred(" "), false);
    assert.equal(deferred(`[${call(',"type":"function"')}`), false);
  });
});
