import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { passThroughGeminiStream, type GeminiFraming } from "@/lib/providers/gemini/pass-through-stream";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

// Gemini frames its events with CRLF.
const fixture = fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "gemini", "stream-parallel-calls.sse"));
const chunks = fixture
  .toString("utf8")
  .split("\r\n\r\n")
  .filter(Boolean)
  .map((event) => JSON.parse(event.replace(/^data: /, "")));
const sse = (events: object[]) => Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join(""));

async function relay(bytes: Uint8Array, seed: number, framing: GeminiFraming = "sse") {
  const meter = new UsageMeter();
  const pieces = await collect(passThroughGeminiStream(fromPieces(splitAtRandom(bytes, seed, 60)), framing, meter));
  return { text: Buffer.concat(pieces).toString("utf8"), meter, pieces };
}

describe("same-format Gemini stream, passed through as the upstream's chunks", () => {
  test("SSE: the upstream's events (LF-framed), split anywhere, in whole events, with the last usage metered", async () => {
    for (let seed = 1; seed < 60; seed += 1) {
      const { text, meter, pieces } = await relay(fixture, seed);
      assert.equal(text, fixture.toString("utf8").replaceAll("\r\n", "\n"), `seed ${seed}`);
      assert.ok(
        pieces.every((piece) => Buffer.from(piece).toString("utf8").endsWith("\n\n")),
        "whole events only",
      );
      assert.deepEqual(meter.usage, { promptTokens: 40, completionTokens: 17, cachedTokens: 8, reasoningTokens: 7 });
      assert.ok(meter.firstTokenAt !== undefined);
      assert.equal(meter.error, undefined);
    }
  });

  test("without alt=sse: one JSON array of the same chunks, at any split", async () => {
    for (let seed = 1; seed < 40; seed += 1) {
      const { text, meter } = await relay(fixture, seed, "array");
      assert.ok(text.startsWith("[{") && text.endsWith("}]"), text.slice(0, 20));
      assert.deepEqual(JSON.parse(text), chunks, `seed ${seed}`);
      assert.equal(meter.usage?.completionTokens, 17);
    }
  });

  test("usage is the last chunk's, also when the client leaves mid-stream", async () => {
    const events = Array.from({ length: 8 }, (_, index) => ({
      candidates: [{ content: { role: "model", parts: [{ text: `w${index} ` }] }, index: 0 }],
      usageMetadata: { promptTokenCount: 9, candidatesTokenCount: index + 1, totalTokenCount: 10 + index },
    }));
    const meter = new UsageMeter();
    let seen = 0;
    for await (const _ of passThroughGeminiStream(fromPieces(events.map((event) => sse([event]))), "sse", meter)) if (++seen === 5) break;
    assert.deepEqual(meter.usage, { promptTokens: 9, completionTokens: 5, cachedTokens: undefined, reasoningTokens: undefined });
  });

  test("a blocked prompt ends the stream", async () => {
    const { text } = await relay(sse([{ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } }]), 1, "array");
    assert.deepEqual(JSON.parse(text), [{ promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } }]);
  });

  test("keys inside a function call's args are not the chunk's own: they neither end the stream nor report an error", async () => {
    const call = {
      candidates: [
        {
          content: { role: "model", parts: [{ functionCall: { name: "f", args: { error: { message: "x" }, finishReason: "STOP", usageMetadata: { promptTokenCount: 999 } } } }] },
          index: 0,
        },
      ],
    };
    const { text, meter } = await relay(sse([call, { candidates: [{ content: { parts: [{ text: "done" }] }, finishReason: "STOP", index: 0 }] }]), 2);
    assert.equal(meter.error, undefined);
    assert.equal(meter.usage, undefined, "no usage reported");
    assert.equal(meter.generatedText, "fdone", "the estimate reads the call's name and the text");
    assert.equal(text.split("\n\n").filter(Boolean).length, 2);
    await assert.rejects(relay(sse([call]), 1), /ended before/);
  });

  test("an error chunk ends the stream and is recorded; what came before is estimated", async () => {
    const { meter } = await relay(
      sse([{ candidates: [{ content: { role: "model", parts: [{ text: "Partial" }] }, index: 0 }] }, { error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" } }]),
      3,
    );
    assert.equal(meter.error?.message, "Overloaded");
    assert.equal(meter.generatedText, "Partial");
  });

  test("a first chunk that is not JSON fails (so the call fails over); comments before it are skipped; a cut stream is truncated", async () => {
    await assert.rejects(relay(Buffer.from("data: {not json\r\n\r\n"), 1), /could not read/);
    const withComment = Buffer.concat([Buffer.from(": keep-alive\r\n\r\n"), fixture]);
    assert.deepEqual(JSON.parse((await relay(withComment, 4, "array")).text), chunks);
    const cut = `${fixture.toString("utf8").split("\r\n\r\n").slice(0, 2).join("\r\n\r\n")}\r\n\r\n`;
    await assert.rejects(relay(Buffer.from(cut), 1), /ended before/);
  });
});
