import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { decodeSse } from "@/lib/sse/decode-sse";
import { encodeSse } from "@/lib/sse/encode-sse";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

const encoder = new TextEncoder();

describe("SSE decoding", () => {
  const stream =
    ": keep-alive comment\r\n\r\n" +
    'event: message_start\r\ndata: {"a":1}\r\n\r\n' +
    "data: line one\ndata: line two\n\n" +
    'data: {"text":"héllo wörld 👋"}\r\r' +
    "data: [DONE]\n\n";
  const expected = [
    { event: "message_start", data: '{"a":1}' },
    { event: undefined, data: "line one\nline two" },
    { event: undefined, data: '{"text":"héllo wörld 👋"}' },
    { event: undefined, data: "[DONE]" },
  ];

  test("handles CR, LF and CRLF, comments, named events and multi-line data", async () => {
    const messages = await collect(decodeSse(fromPieces([encoder.encode(stream)])));
    assert.deepEqual(
      messages.map(({ event, data }) => ({ event, data })),
      expected,
    );
  });

  test("gives the same messages however the bytes are split, even inside a UTF-8 character", async () => {
    const bytes = encoder.encode(stream);
    for (let seed = 1; seed <= 200; seed += 1) {
      const messages = await collect(decodeSse(fromPieces(splitAtRandom(bytes, seed))));
      assert.deepEqual(
        messages.map(({ event, data }) => ({ event, data })),
        expected,
        `seed ${seed}`,
      );
    }
    const oneByOne = [...bytes].map((byte) => Uint8Array.of(byte));
    const messages = await collect(decodeSse(fromPieces(oneByOne)));
    assert.deepEqual(
      messages.map(({ event, data }) => ({ event, data })),
      expected,
    );
  });

  test("delivers a last event that lacks its blank line", async () => {
    const messages = await collect(decodeSse(fromPieces([encoder.encode('data: {"end":true}')])));
    assert.deepEqual(
      messages.map((message) => message.data),
      ['{"end":true}'],
    );
  });

  test("encodes named and unnamed events", () => {
    assert.equal(encodeSse("{}"), "data: {}\n\n");
    assert.equal(encodeSse("{}", "ping"), "event: ping\ndata: {}\n\n");
  });
});
