import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { collectResponse } from "@/lib/canonical/collect-response";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { chatCompletionChunkSchema } from "@/lib/providers/openai/openai-api";
import { isPlainChunk, openAIResponseEvents, parseOpenAIStream } from "@/lib/providers/openai/parse-stream";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "openai", name));

async function parse(bytes: Uint8Array, seed: number): Promise<StreamEvent[]> {
  return (await collect(parseOpenAIStream(decodeSseBatches(fromPieces(splitAtRandom(bytes, seed)))))).flat();
}

describe("OpenAI stream -> canonical events", () => {
  test("text stream with usage, split at arbitrary byte boundaries", async () => {
    const bytes = fixture("stream-text-usage.chunks.txt");
    const reference = await parse(bytes, 1);
    assert.deepEqual(reference, [
      { type: "message-start", id: "chatcmpl-1", model: "m", created: 1 },
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
      { type: "finish", reason: "stop" },
      { type: "usage", usage: { promptTokens: 9, completionTokens: 2, cachedTokens: 4, reasoningTokens: undefined } },
    ]);
    for (let seed = 2; seed < 100; seed += 1) assert.deepEqual(await parse(bytes, seed), reference, `seed ${seed}`);
  });

  test("two parallel tool calls with argument fragments", async () => {
    const bytes = fixture("stream-tool-calls.chunks.txt");
    const events = await parse(bytes, 7);
    const response = await collectResponse(fromEvents(events));
    assert.equal(response.finishReason, "tool-calls");
    assert.deepEqual(response.toolCalls, [
      { id: "call_9o", name: "get_weather", arguments: '{"city":"Paris"}' },
      { id: "call_7x", name: "get_time", arguments: '{"tz":"CET"}' },
    ]);
    assert.equal(response.usage?.cachedTokens, 64);
    for (let seed = 8; seed < 60; seed += 1) assert.deepEqual(await parse(bytes, seed), events, `seed ${seed}`);
  });

  test("a non-streaming response yields the same events", async () => {
    const json = JSON.parse(fixture("completion-tool-calls.json").toString("utf8"));
    const response = await collectResponse(fromEvents([...openAIResponseEvents(json)]));
    assert.equal(response.id, "chatcmpl-123");
    assert.deepEqual(response.toolCalls, [{ id: "call_abc", name: "get_weather", arguments: '{"city":"Paris"}' }]);
    assert.equal(response.usage?.promptTokens, 82);
  });

  test("an error chunk mid-stream becomes an error event", async () => {
    const bytes = new TextEncoder().encode('data: {"id":"x","choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"error":{"message":"boom","type":"server_error"}}\n\n');
    const events = await parse(bytes, 3);
    assert.equal(events.at(-1)?.type, "error");
  });
});

describe("canonical events -> Chat Completions chunks", () => {
  test("renders role first, deltas, finish, usage before [DONE] when asked", async () => {
    const events = await parse(fixture("stream-tool-calls.chunks.txt"), 1);
    const out = (await collect(renderChatCompletionStream(fromEvents(events), { includeUsage: true, fallbackModel: "m" }))).join("");
    const datas = out
      .split("\n\n")
      .filter(Boolean)
      .map((block) => block.replace(/^data: /, ""));
    assert.equal(datas.at(-1), "[DONE]");
    const chunks = datas.slice(0, -1).map((data) => JSON.parse(data));
    assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
    assert.ok(chunks.every((chunk) => chunk.id === "chatcmpl-2" && chunk.object === "chat.completion.chunk"));
    const usageChunk = chunks.at(-1);
    assert.deepEqual(usageChunk.choices, []);
    assert.equal(usageChunk.usage.total_tokens, 99);
    assert.equal(chunks.at(-2).choices[0].finish_reason, "tool_calls");
    const firstCall = chunks.find((chunk) => chunk.choices[0]?.delta.tool_calls);
    assert.deepEqual(firstCall.choices[0].delta.tool_calls[0], {
      index: 0,
      id: "call_9o",
      type: "function",
      function: { name: "get_weather", arguments: "" },
    });
  });

  test("omits the usage chunk when not asked, and ends an errored stream with an error object", async () => {
    const ok = (
      await collect(
        renderChatCompletionStream(
          fromEvents([
            { type: "text-delta", text: "hi" },
            { type: "usage", usage: { promptTokens: 1, completionTokens: 1 } },
            { type: "finish", reason: "stop" },
          ]),
          { includeUsage: false, fallbackModel: "m" },
        ),
      )
    ).join("");
    assert.equal(ok.includes('"usage"'), false);
    const { GatewayError } = await import("@/lib/canonical/gateway-error");
    const failed = (
      await collect(
        renderChatCompletionStream(
          fromEvents([
            { type: "text-delta", text: "hi" },
            { type: "error", error: new GatewayError("overloaded", "busy") },
          ]),
          { includeUsage: false, fallbackModel: "m" },
        ),
      )
    ).join("");
    assert.match(failed, /data: \{"error":\{"message":"busy"/);
    assert.equal(failed.includes("[DONE]"), false);
  });
});

/** Events in batches of two, as a parser yields them per upstream read. */
async function* fromEvents(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (let start = 0; start < events.length; start += 2) yield events.slice(start, start + 2);
}

test("a chunk the hand check accepts is one the schema accepts unchanged", () => {
  const loose = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 4 }), fc.integer(), fc.double(), fc.boolean(), fc.constant([]), fc.constant({}));
  const delta = fc.record(
    { role: loose, content: loose, reasoning_content: loose, reasoning: loose, refusal: loose, tool_calls: fc.oneof(loose, fc.constant([{ index: 0 }])) },
    { requiredKeys: [], noNullPrototype: true },
  );
  const choice = fc.record({ index: loose, delta: fc.oneof(loose, delta), finish_reason: loose }, { requiredKeys: [], noNullPrototype: true });
  const chunk = fc.record(
    { id: loose, model: loose, created: loose, choices: fc.oneof(loose, fc.array(fc.oneof(choice, loose), { maxLength: 3 })), usage: loose, error: loose },
    { requiredKeys: [], noNullPrototype: true },
  );
  let accepted = 0;
  fc.assert(
    fc.property(fc.oneof(chunk, loose), (value) => {
      if (!isPlainChunk(value)) return;
      accepted += 1;
      const parsed = chatCompletionChunkSchema.safeParse(value);
      assert.ok(parsed.success, JSON.stringify(value));
      assert.deepEqual(parsed.data, value);
    }),
    { numRuns: 5000 },
  );
  assert.ok(accepted > 100, `only ${accepted} accepted`);
});
