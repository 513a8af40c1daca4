import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { passThroughMessageStream } from "@/lib/providers/anthropic/pass-through-stream";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

const fixture = fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "anthropic", "stream-thinking-text-tool.sse"));

async function relay(bytes: Uint8Array, seed: number) {
  const meter = new UsageMeter();
  const pieces = await collect(passThroughMessageStream(fromPieces(splitAtRandom(bytes, seed, 60)), meter));
  return { text: Buffer.concat(pieces).toString("utf8"), meter, pieces };
}

describe("same-format Anthropic stream, passed through as bytes", () => {
  test("the output is the upstream's bytes, split anywhere, in whole events, with usage metered", async () => {
    for (let seed = 1; seed < 60; seed += 1) {
      const { text, meter, pieces } = await relay(fixture, seed);
      assert.equal(text, fixture.toString("utf8"), `seed ${seed}`);
      assert.ok(
        pieces.every((piece) => Buffer.from(piece).toString("utf8").endsWith("\n\n")),
        "whole events only",
      );
      assert.equal(meter.usage?.promptTokens, 712);
      assert.ok((meter.usage?.completionTokens ?? 0) > 1, "output tokens from the final delta");
      assert.equal(meter.usage?.cachedTokens, 100);
      assert.ok(meter.firstTokenAt !== undefined);
    }
  });

  test("no usage from the upstream: text, thinking and tool input are kept for an estimate", async () => {
    const events = [
      { type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [] } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi " } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "there" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_stop" },
    ];
    const text = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    const { meter } = await relay(Buffer.from(text), 3);
    assert.equal(meter.usage, undefined);
    assert.equal(meter.generatedText, "Hi there");
  });

  test("a first event that is not JSON fails (so the call fails over); a stream cut before message_delta is truncated", async () => {
    await assert.rejects(relay(Buffer.from("event: message_start\ndata: {not json\n\n"), 1), /could not read/);
    const cut = fixture.toString("utf8").split("event: message_delta")[0]!;
    await assert.rejects(relay(Buffer.from(cut), 1), /ended before/);
  });

  test("a stream cut after message_delta is complete: the message_stop clients wait for is added", async () => {
    const cut = fixture.toString("utf8").split("event: message_stop")[0]!;
    const { text: out } = await relay(Buffer.from(cut), 1);
    assert.equal(out, `${cut}event: message_stop\ndata: {"type":"message_stop"}\n\n`);
  });

  test("an error event is recorded and ends the stream; comments and spaced JSON are read too", async () => {
    const text =
      ': keep-alive\n\nevent: message_start\ndata: {"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}}\n\nevent: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';
    const { text: out, meter } = await relay(Buffer.from(text), 2);
    assert.equal(out, text);
    assert.equal(meter.error?.message, "Overloaded");
  });
});
