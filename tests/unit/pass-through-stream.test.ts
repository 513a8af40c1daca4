import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { parseOpenAIUsage } from "@/lib/formats/openai/render-usage";
import { passThroughStream } from "@/lib/providers/openai/pass-through-stream";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "openai", name));
const spec = {
  usage: (json: Record<string, unknown>) => parseOpenAIUsage(json.usage),
  outputText: (json: Record<string, unknown>) => ((json.choices as { delta?: { content?: string } }[]) ?? []).map((choice) => choice.delta?.content ?? "").join(""),
};

async function relay(bytes: Uint8Array, seed: number, includeUsage: boolean) {
  const meter = new UsageMeter();
  const pieces = await collect(passThroughStream(fromPieces(splitAtRandom(bytes, seed, 40)), includeUsage, spec, meter));
  return { text: Buffer.concat(pieces).toString("utf8"), meter, pieces: pieces.length };
}

describe("same-format OpenAI stream, passed through as bytes", () => {
  test("with include_usage the output is byte-identical, split anywhere, and usage is metered", async () => {
    const bytes = fixture("stream-text-usage.chunks.txt");
    for (let seed = 1; seed < 60; seed += 1) {
      const { text, meter } = await relay(bytes, seed, true);
      assert.equal(text, bytes.toString("utf8"), `seed ${seed}`);
      assert.deepEqual(meter.usage, { promptTokens: 9, completionTokens: 2, cachedTokens: 4, reasoningTokens: undefined });
      assert.ok(meter.firstTokenAt !== undefined);
    }
  });

  test("without include_usage the usage chunk and usage:null fields are gone, the rest is unchanged", async () => {
    const bytes = fixture("stream-text-usage.chunks.txt");
    const expected = bytes
      .toString("utf8")
      .split("\n\n")
      .filter((event) => !event.includes('"usage":{'))
      .map((event) => event.replaceAll(',"usage":null', ""))
      .join("\n\n");
    for (let seed = 1; seed < 30; seed += 1) {
      const { text, meter } = await relay(bytes, seed, false);
      assert.equal(text, expected, `seed ${seed}`);
      assert.equal(meter.usage?.completionTokens, 2);
    }
  });

  test("whole events only, one buffer per upstream read", async () => {
    const bytes = fixture("stream-tool-calls.chunks.txt");
    const meter = new UsageMeter();
    for await (const piece of passThroughStream(fromPieces(splitAtRandom(bytes, 3, 50)), true, spec, meter)) {
      assert.ok(Buffer.from(piece).toString("utf8").endsWith("\n\n"));
    }
  });

  test("no usage from the upstream: the text is kept for an estimate", async () => {
    const text = [
      'data: {"choices":[{"index":0,"delta":{"content":"Hi "},"finish_reason":null}]}',
      'data: {"choices":[{"index":0,"delta":{"content":"there"},"finish_reason":"stop"}]}',
      "data: [DONE]",
      "",
    ].join("\n\n");
    const { meter } = await relay(Buffer.from(text), 5, true);
    assert.equal(meter.usage, undefined);
    assert.equal(meter.generatedText, "Hi there");
  });

  test("a first event that is not JSON fails (so the call fails over); a cut stream is truncated; a missing [DONE] is added", async () => {
    await assert.rejects(relay(Buffer.from("data: {not json\n\n"), 1, true), /could not read/);
    await assert.rejects(relay(Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n'), 1, true), /ended before/);
    const { text } = await relay(Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}\n\n'), 1, true);
    assert.ok(text.endsWith("data: [DONE]\n\n"));
  });

  test("CRLF line ends and a last event without its blank line are read", async () => {
    const text = 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}\r\n\r\ndata: [DONE]';
    const { text: out } = await relay(Buffer.from(text), 2, true);
    assert.equal(out, 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n');
  });

  test("an error event mid-stream is recorded and passed on as the stream's end (nothing added after it)", async () => {
    const text = 'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\ndata: {"error":{"message":"boom"}}\n\n';
    const meter = new UsageMeter();
    const out = Buffer.concat(await collect(passThroughStream(fromPieces([Buffer.from(text)]), true, spec, meter))).toString("utf8");
    assert.equal(out, text);
    assert.equal(meter.error?.message, "boom");
  });

  test("usage riding on a content chunk: without include_usage the field goes and the content stays", async () => {
    const text = [
      'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":null}',
      'data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      "data: [DONE]",
      "",
    ].join("\n\n");
    for (let seed = 1; seed < 20; seed += 1) {
      const { text: out, meter } = await relay(Buffer.from(text), seed, false);
      assert.equal(
        out,
        'data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
        `seed ${seed}`,
      );
      assert.equal(meter.usage?.promptTokens, 3);
    }
  });

  test("markers inside content are content: no error, no end, no usage", async () => {
    const text =
      'data: {"choices":[{"index":0,"delta":{"content":"error"},"finish_reason":null}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"data: [DONE]\\n\\n usage"},"finish_reason":null}]}\n\n';
    const meter = new UsageMeter();
    await assert.rejects(collect(passThroughStream(fromPieces([Buffer.from(text)]), true, spec, meter)), /ended before/);
    assert.equal(meter.error, undefined);
    assert.equal(meter.usage, undefined);
  });

  test("CRLF split anywhere, even between CR and LF or inside a character, reads as the LF stream", async () => {
    const lf = [
      'data: {"choices":[{"index":0,"delta":{"content":"héllo ✓"},"finish_reason":null}]}',
      // One event, two data lines: a split between its CR and LF must not end it.
      'data: {"choices":[{"index":0,\ndata: "delta":{"content":"ü"},"finish_reason":"stop"}]}',
      "data: [DONE]",
      "",
    ].join("\n\n");
    const crlf = Buffer.from(lf.replaceAll("\n", "\r\n"));
    for (let cut = 1; cut < crlf.length; cut += 1) {
      const meter = new UsageMeter();
      const pieces = await collect(passThroughStream(fromPieces([crlf.subarray(0, cut), crlf.subarray(cut)]), true, spec, meter));
      assert.equal(Buffer.concat(pieces).toString("utf8"), lf, `cut at ${cut}`);
    }
  });

  test("keep-alive comments before the first event are relayed, not taken for a broken stream", async () => {
    const text = ': PROCESSING\n\n: PROCESSING\n\ndata: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    for (let seed = 1; seed < 10; seed += 1) {
      const { text: out } = await relay(Buffer.from(text), seed, true);
      assert.equal(out, text, `seed ${seed}`);
    }
  });
});
