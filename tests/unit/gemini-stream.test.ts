import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { collectResponse } from "@/lib/canonical/collect-response";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { renderGenerateContentStream } from "@/lib/formats/gemini/render-stream";
import { geminiResponseEvents, parseGeminiStream } from "@/lib/providers/gemini/parse-stream";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "gemini", name));
const parse = async (bytes: Uint8Array, seed: number) => (await collect(parseGeminiStream(decodeSseBatches(fromPieces(splitAtRandom(bytes, seed)))))).flat();
/** Events in batches of two, as a parser yields them per upstream read. */
async function* from(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (let start = 0; start < events.length; start += 2) yield events.slice(start, start + 2);
}
// Made-up ids and the arrival time differ run to run; the rest must not.
const withoutIds = (events: StreamEvent[]) =>
  events.map((event) => (event.type === "tool-call-start" ? { ...event, id: "*" } : event.type === "message-start" ? { ...event, created: 0 } : event));

describe("Gemini stream -> canonical events", () => {
  test("CRLF-framed chunks, calls split over chunks, cumulative usage, at any byte split", async () => {
    const bytes = fixture("stream-parallel-calls.sse");
    const events = await parse(bytes, 1);
    const response = await collectResponse(from(events));
    assert.equal(response.reasoning, "Checking both.");
    assert.deepEqual(
      response.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)]),
      [
        ["get_weather", { city: "Paris" }],
        ["get_weather", { city: "Rome" }],
      ],
    );
    const ids = response.toolCalls.map((call) => call.id);
    assert.equal(new Set(ids).size, 2, "same-name calls get distinct ids");
    assert.ok(ids.every((id) => id.startsWith("call_")));
    assert.equal(response.finishReason, "tool-calls", "STOP with calls is a tool-call finish");
    // The last usageMetadata, not a sum: thoughts count as completion.
    assert.deepEqual(response.usage, { promptTokens: 40, completionTokens: 17, cachedTokens: 8, reasoningTokens: 7 });
    for (let seed = 2; seed < 80; seed += 1) assert.deepEqual(withoutIds(await parse(bytes, seed)), withoutIds(events), `seed ${seed}`);
  });

  test("a non-streaming response: thought parts are reasoning, usage converted", async () => {
    const response = await collectResponse(from([...geminiResponseEvents(JSON.parse(fixture("response-text.json").toString()))]));
    assert.equal(response.reasoning, "Thinking about units...");
    assert.equal(response.text, "It is 21°C.");
    assert.deepEqual(response.usage, { promptTokens: 120, completionTokens: 49, cachedTokens: 20, reasoningTokens: 40 });
  });

  test("a blocked prompt finishes as content-filter", async () => {
    const events = [...geminiResponseEvents({ promptFeedback: { blockReason: "SAFETY" } })];
    assert.deepEqual(events.at(-1), { type: "finish", reason: "content-filter" });
  });
});

describe("canonical events -> Gemini stream", () => {
  const events: StreamEvent[] = [
    { type: "message-start", id: "r1", model: "m", created: 1 },
    { type: "text-delta", text: "Hi" },
    { type: "tool-call-start", index: 0, id: "call_1", name: "f" },
    { type: "tool-call-delta", index: 0, argumentsDelta: '{"a"' },
    { type: "tool-call-delta", index: 0, argumentsDelta: ":1}" },
    { type: "finish", reason: "tool-calls" },
    { type: "usage", usage: { promptTokens: 3, completionTokens: 4, reasoningTokens: 1 } },
  ];

  test("SSE: whole function calls only, finish and usage on the last chunk", async () => {
    const out = (await collect(renderGenerateContentStream(from(events), { model: "m", sse: true }))).join("");
    const chunks = out
      .split("\n\n")
      .filter(Boolean)
      .map((block) => JSON.parse(block.replace(/^data: /, "")));
    assert.deepEqual(chunks[0].candidates[0].content.parts, [{ text: "Hi" }]);
    assert.deepEqual(chunks[1].candidates[0].content.parts, [{ functionCall: { id: "call_1", name: "f", args: { a: 1 } } }]);
    assert.equal(chunks.at(-1).candidates[0].finishReason, "STOP");
    assert.deepEqual(chunks.at(-1).usageMetadata, { promptTokenCount: 3, candidatesTokenCount: 3, thoughtsTokenCount: 1, totalTokenCount: 7 });
  });

  test("without alt=sse the stream is one JSON array", async () => {
    const out = (await collect(renderGenerateContentStream(from(events), { model: "m", sse: false }))).join("");
    const array = JSON.parse(out);
    assert.equal(array.length, 3);
  });
});
