import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { eventsPerInput, renderPerBatch, type StreamEvent } from "@/lib/canonical/stream-event";
import { renderMessageStream } from "@/lib/formats/anthropic/render-stream";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { passThroughStream } from "@/lib/providers/openai/pass-through-stream";
import { parseOpenAIStream } from "@/lib/providers/openai/parse-stream";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { UsageMeter } from "@/lib/usage/usage-meter";

// A stream's reads pass plain iterators (one promise per read), not generators. What the
// generators did for free is held here: a consumer that stops closes the upstream, a
// failure gives what was rendered before it and then the format's error event, and the
// stream's ending runs once.

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;

/** An upstream body that says whether it was closed (its reader left) or read to its end. */
function upstream(reads: string[]) {
  const state = { closed: false, ended: false, reads: 0 };
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for (const read of reads) {
        state.reads += 1;
        yield Buffer.from(read);
      }
      state.ended = true;
    } finally {
      if (!state.ended) state.closed = true;
    }
  }
  return { body: body(), state };
}

describe("streams through plain iterators", () => {
  test("a client that leaves after the first event closes the upstream body (translated stream)", async () => {
    const { body, state } = upstream([chunk({ role: "assistant", content: "" }), chunk({ content: "Hel" }), chunk({ content: "lo" }), chunk({}, "stop"), "data: [DONE]\n\n"]);
    const rendered = renderMessageStream(parseOpenAIStream(decodeSseBatches(body)), { model: "claude-test" });
    for await (const text of rendered) {
      assert.match(text, /event: message_start/);
      break;
    }
    assert.equal(state.closed, true);
    assert.ok(state.reads < 5);
  });

  test("a stream read to its end renders its closing events once, and leaves the upstream read to its end", async () => {
    const { body, state } = upstream([chunk({ role: "assistant", content: "" }), chunk({ content: "Hello" }), chunk({}, "stop"), "data: [DONE]\n\n"]);
    const out: string[] = [];
    for await (const text of renderMessageStream(parseOpenAIStream(decodeSseBatches(body)), { model: "claude-test" })) out.push(text);
    const joined = out.join("");
    assert.equal(joined.match(/event: message_stop/g)?.length, 1);
    assert.equal(joined.match(/event: message_delta/g)?.length, 1);
    assert.match(joined, /"text":"Hello"/);
    assert.equal(state.ended, true);
    assert.equal(state.closed, false);
  });

  test("a chunk that does not parse: the text before it is given, then the format's error event, and the upstream is closed", async () => {
    const { body, state } = upstream([chunk({ role: "assistant", content: "" }) + chunk({ content: "Hi" }) + "data: {not json\n\n", chunk({ content: "never" })]);
    const out: string[] = [];
    for await (const text of renderChatCompletionStream(parseOpenAIStream(decodeSseBatches(body)), { includeUsage: false, fallbackModel: "m" })) out.push(text);
    const joined = out.join("");
    assert.match(joined, /"content":"Hi"/);
    assert.doesNotMatch(joined, /never/);
    assert.match(out.at(-1)!, /"error"/);
    assert.doesNotMatch(joined, /\[DONE\]/);
    assert.equal(state.closed, true);
  });

  test("eventsPerInput: a stop after an error event gives that batch, then the ending once, and closes the inputs", async () => {
    let endings = 0;
    let closed = false;
    async function* inputs() {
      try {
        yield 1;
        yield 2;
        yield 3;
      } finally {
        closed = true;
      }
    }
    let failed = false;
    const batches = eventsPerInput(
      inputs(),
      (input: number): StreamEvent[] => {
        if (input === 2) failed = true;
        return [{ type: "text-delta", text: `t${input}` }];
      },
      {
        stopped: () => failed,
        ending: () => {
          endings += 1;
          return [{ type: "finish", reason: "stop" }];
        },
      },
    );
    const seen: string[] = [];
    for await (const batch of batches) for (const event of batch) seen.push(event.type === "text-delta" ? event.text : event.type);
    assert.deepEqual(seen, ["t1", "t2", "finish"]);
    assert.equal(endings, 1);
    assert.equal(closed, true);
  });

  test("a relayed stream whose client leaves before any usage still estimates what was relayed", async () => {
    const { body, state } = upstream([chunk({ role: "assistant", content: "" }), chunk({ content: "Hello there" }), chunk({ content: " more" })]);
    const meter = new UsageMeter();
    const spec = {
      usage: () => undefined,
      outputText: (json: Record<string, unknown>) => ((json.choices as { delta?: { content?: string } }[]) ?? []).map((choice) => choice.delta?.content ?? "").join(""),
    };
    let reads = 0;
    for await (const _ of passThroughStream(body, false, spec, meter)) {
      reads += 1;
      if (reads === 2) break;
    }
    assert.equal(meter.usage, undefined);
    assert.equal(meter.generatedText, "Hello there");
    assert.equal(state.closed, true);
  });

  test("a stream closed while a read is pending (a web client's cancel) renders nothing more, not even its ending", async () => {
    let release: (value: IteratorResult<StreamEvent[]>) => void = () => undefined;
    let closed = false;
    const batches = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<StreamEvent[]>>((resolve) => (release = resolve)),
        return: async () => {
          closed = true;
          return { done: true as const, value: undefined };
        },
      }),
    };
    let endings = 0;
    const rendered = renderPerBatch(batches, (event) => [event.type], {
      failed: () => "failed",
      ending: () => {
        endings += 1;
        return "ending";
      },
    })[Symbol.asyncIterator]();
    const pending = rendered.next();
    await rendered.return?.();
    release({ done: true, value: undefined });
    assert.deepEqual(await pending, { done: true, value: undefined });
    assert.equal(endings, 0);
    assert.equal(closed, true);
  });
});
