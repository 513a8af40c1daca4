import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import { parseChatCompletionRequest } from "@/lib/formats/openai/parse-request";

const base = { model: "m", messages: [{ role: "user", content: "hi" }] };

function rejects(body: Record<string, unknown>): string | null {
  try {
    parseChatCompletionRequest(body);
    return "accepted";
  } catch (error) {
    assert.ok(isGatewayError(error));
    assert.equal(error.status, 400);
    return error.param;
  }
}

describe("OpenAI chat request validation", () => {
  test("accepts the documented bounds", () => {
    for (const fields of [
      { temperature: 0 },
      { temperature: 2 },
      { top_p: 1 },
      { n: 1 },
      { presence_penalty: -2 },
      { frequency_penalty: 2 },
      { reasoning_effort: "low" },
      { reasoning_effort: "high" },
      { stop: ["a", "b", "c", "d"] },
      { max_tokens: 1 },
      { stream: true, stream_options: { include_usage: true } },
    ]) {
      assert.equal(rejects({ ...base, ...fields }), "accepted", JSON.stringify(fields));
    }
  });

  test("rejects values out of bounds, naming the parameter", () => {
    assert.equal(rejects({ ...base, temperature: -0.1 }), "temperature");
    assert.equal(rejects({ ...base, top_p: -1 }), "top_p");
    assert.equal(rejects({ ...base, n: 1.5 }), "n");
    assert.equal(rejects({ ...base, stop: ["a", "b", "c", "d", "e"] }), "stop");
    assert.equal(rejects({ ...base, max_tokens: 0 }), "max_tokens");
    assert.equal(rejects({ ...base, messages: [] }), "messages");
    assert.equal(rejects({ ...base, messages: [{ role: "tool", content: "x" }] }), "messages[0].tool_call_id");
    assert.equal(rejects({ ...base, tools: [{ type: "function", function: { name: "f", parameters: "x" } }] }), "tools[0].function.parameters");
  });

  test("keeps unknown fields and maps to the canonical request", () => {
    const parsed = parseChatCompletionRequest({
      ...base,
      messages: [
        { role: "system", content: "sys one" },
        { role: "developer", content: [{ type: "text", text: "sys two" }] },
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          ],
        },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_1", content: "42" },
      ],
      stop: "END",
      max_completion_tokens: 64,
      vendor_extension: { a: 1 },
    });
    assert.deepEqual((parsed.body as Record<string, unknown>).vendor_extension, { a: 1 });
    assert.equal(parsed.chat.system, "sys one\n\nsys two");
    assert.deepEqual(parsed.chat.stop, ["END"]);
    assert.equal(parsed.chat.maxTokens, 64);
    assert.deepEqual(parsed.chat.messages[0]!.content[1], { type: "image", source: { kind: "base64", mediaType: "image/png", data: "AAAA" } });
    assert.deepEqual(parsed.chat.messages[1]!.content, [{ type: "tool-call", id: "call_1", name: "f", arguments: "{}" }]);
    assert.deepEqual(parsed.chat.messages[2], { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", content: "42" }] });
    assert.equal(parsed.includeUsage, false);
  });
});

test("a present field of the wrong type or range is named as such, never as missing", () => {
  const message = (body: unknown) => {
    try {
      parseChatCompletionRequest(body);
      return "accepted";
    } catch (error) {
      return (error as Error).message;
    }
  };
  const user = [{ role: "user", content: "x" }];
  assert.equal(message({ model: "m", messages: "hi" }), "Invalid value for 'messages': Invalid input: expected array, received string");
  assert.equal(message({ model: "m", messages: user, temperature: "hot" }), "Invalid value for 'temperature': Invalid input: expected number, received string");
  assert.match(message({ model: "m", messages: user, temperature: 9 }), /^Invalid value for 'temperature': Too big/);
  assert.match(message({ model: "m", messages: [{ role: "wizard", content: "x" }] }), /^Invalid value for 'messages\[0\]\.role'.*'user'/);
  assert.equal(message({ model: "m" }), "Missing required parameter: 'messages'.");
});
