import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { collectResponse } from "@/lib/canonical/collect-response";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { renderMessageStream } from "@/lib/formats/anthropic/render-stream";
import { anthropicResponseEvents, parseAnthropicStream } from "@/lib/providers/anthropic/parse-stream";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "anthropic", name));
// message-start carries the arrival time; it is zeroed so runs compare equal.
const parse = async (bytes: Uint8Array, seed: number) =>
  (await collect(parseAnthropicStream(decodeSseBatches(fromPieces(splitAtRandom(bytes, seed))))))
    .flat()
    .map((event) => (event.type === "message-start" ? { ...event, created: 0 } : event));
/** Events in batches of two, as a parser yields them per upstream read. */
async function* from(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (let start = 0; start < events.length; start += 2) yield events.slice(start, start + 2);
}

/** Parses rendered Anthropic SSE back into [event name, data] pairs. */
function frames(sse: string): [string, any][] {
  return sse
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine] = block.split("\n");
      assert.match(eventLine!, /^event: /, "every event has its event: line");
      const data = JSON.parse(dataLine!.replace(/^data: /, ""));
      assert.equal(data.type, eventLine!.slice(7));
      return [eventLine!.slice(7), data];
    });
}

describe("Anthropic stream -> canonical events", () => {
  test("thinking with signature, text and two tool calls, however the bytes are split", async () => {
    const bytes = fixture("stream-thinking-text-tool.sse");
    const events = await parse(bytes, 1);
    const response = await collectResponse(from(events));
    assert.equal(response.reasoning, "I should call the weather tool.");
    assert.match(response.reasoningSignature!, /^EqQB/);
    assert.equal(response.text, "Let me check.");
    assert.deepEqual(response.toolCalls, [
      { id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather", arguments: '{"city": "Paris"}' },
      { id: "toolu_01A09q90qw90lq917835lq9", name: "get_time", arguments: '{"tz": "CET"}' },
    ]);
    assert.equal(response.finishReason, "tool-calls");
    // message_delta carried only output_tokens: input and cache counts come from message_start.
    assert.deepEqual(response.usage, { promptTokens: 712, completionTokens: 89, cachedTokens: 100, cacheWriteTokens: undefined, reasoningTokens: undefined });
    for (let seed = 2; seed < 80; seed += 1) assert.deepEqual(await parse(bytes, seed), events, `seed ${seed}`);
  });

  test("a stream cut before message_delta is an upstream failure, never an empty success", async () => {
    const text = fixture("stream-thinking-text-tool.sse").toString("utf8").split("event: message_delta")[0]!;
    await assert.rejects(parse(new TextEncoder().encode(text), 3), { code: "upstream_stream_truncated", status: 502 });
  });

  test("an event that is not JSON is a malformed stream", async () => {
    await assert.rejects(parse(new TextEncoder().encode("event: message_start\ndata: {oops\n\n"), 1), { code: "invalid_upstream_stream" });
  });

  test("a non-streaming message yields the same canonical answer", async () => {
    const response = await collectResponse(from([...anthropicResponseEvents(JSON.parse(fixture("message-tool-use.json").toString()))]));
    assert.equal(response.toolCalls[0]!.arguments, '{"city":"Paris"}');
    assert.equal(response.usage?.promptTokens, 412 + 1024);
    assert.equal(response.usage?.cachedTokens, 1024);
  });
});

describe("canonical events -> Anthropic SSE", () => {
  test("indices run 0,1,2 with a stop for every start, and type switches close the open block", async () => {
    const events: StreamEvent[] = [
      { type: "message-start", id: "chatcmpl-1", model: "m", created: 1 },
      { type: "text-delta", text: "" },
      { type: "reasoning-delta", text: "think" },
      { type: "text-delta", text: "Hi" },
      { type: "reasoning-delta", text: "more" },
      { type: "tool-call-start", index: 0, id: "call.1", name: "a" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"x":' },
      { type: "tool-call-start", index: 1, id: "call_2", name: "b" },
      { type: "tool-call-delta", index: 1, argumentsDelta: "{}" },
      { type: "tool-call-delta", index: 0, argumentsDelta: "1}" },
      { type: "finish", reason: "tool-calls" },
      { type: "usage", usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 4 } },
    ];
    const out = frames((await collect(renderMessageStream(from(events), { model: "m" }))).join(""));
    const names = out.map(([name]) => name);
    assert.equal(names[0], "message_start");
    assert.equal(out[0]![1].message.id, "msg_chatcmpl-1");
    assert.deepEqual(names.slice(-2), ["message_delta", "message_stop"]);
    const starts = out.filter(([name]) => name === "content_block_start").map(([, data]) => [data.index, data.content_block.type]);
    assert.deepEqual(starts, [
      [0, "thinking"],
      [1, "text"],
      [2, "thinking"],
      [3, "tool_use"],
      [4, "tool_use"],
    ]);
    const stops = out.filter(([name]) => name === "content_block_stop").map(([, data]) => data.index);
    assert.deepEqual(stops, [0, 1, 2, 3, 4]);
    assert.equal(out.find(([name, data]) => name === "content_block_start" && data.index === 3)![1].content_block.id, "call_1");
    // A late fragment for an earlier call still lands on that call's block.
    const late = out.filter(([name, data]) => name === "content_block_delta" && data.index === 3).map(([, data]) => data.delta.partial_json);
    assert.deepEqual(late, ['{"x":', "1}"]);
    const delta = out.find(([name]) => name === "message_delta")![1];
    assert.deepEqual(delta.delta, { stop_reason: "tool_use", stop_sequence: null });
    assert.deepEqual(delta.usage, { input_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 4, output_tokens: 5 });
  });

  test("an error after the stream started becomes an error event with no message_stop", async () => {
    const { GatewayError } = await import("@/lib/canonical/gateway-error");
    const out = frames(
      (
        await collect(
          renderMessageStream(
            from([
              { type: "text-delta", text: "a" },
              { type: "error", error: new GatewayError("overloaded", "Overloaded") },
            ]),
            { model: "m" },
          ),
        )
      ).join(""),
    );
    assert.deepEqual(out.at(-1), ["error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
    assert.equal(
      out.some(([name]) => name === "message_stop"),
      false,
    );
  });
});
