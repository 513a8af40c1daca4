import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { passThroughResponsesStream } from "@/lib/providers/openai/pass-through-responses-stream";
import { parseResponsesUsage } from "@/lib/providers/openai/relay-responses";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

// A Responses stream as OpenAI sends it: named events, the type repeated in the data.
const item = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Hi there", annotations: [] }] };
const base = { id: "resp_1", object: "response", model: "gpt-test" };
const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 4 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 1 }, total_tokens: 15 };
function stream(final: Record<string, unknown> | undefined, options: { usage?: boolean } = {}) {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  let text = event("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } });
  text += event("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } });
  for (const delta of ["Hi", " there"]) text += event("response.output_text.delta", { item_id: "msg_1", output_index: 0, content_index: 0, delta });
  // An item's own `type` is never an event's: this one must not end the stream.
  text += event("response.output_item.done", { output_index: 0, item: { ...item, note: { type: "response.completed" } } });
  if (final) {
    const { type, ...rest } = final;
    text += event(String(type), { ...rest, ...(rest.response ? { response: { ...(rest.response as object), usage: options.usage === false ? null : usage } } : {}) });
  }
  return Buffer.from(text);
}

async function relay(bytes: Uint8Array, seed: number) {
  const meter = new UsageMeter();
  const kept: Record<string, unknown>[] = [];
  const pieces = await collect(
    passThroughResponsesStream(fromPieces(splitAtRandom(bytes, seed, 80)), { usage: parseResponsesUsage, keep: async (response) => void kept.push(response) }, meter),
  );
  return { text: Buffer.concat(pieces).toString("utf8"), meter, kept, pieces };
}

describe("same-format Responses stream, passed through as bytes", () => {
  const completed = { type: "response.completed", response: { ...base, status: "completed", output: [item] } };

  test("the upstream's bytes, split anywhere, in whole events; usage metered and the final response kept once", async () => {
    const bytes = stream(completed);
    for (let seed = 1; seed < 50; seed += 1) {
      const { text, meter, kept, pieces } = await relay(bytes, seed);
      assert.equal(text, bytes.toString("utf8"), `seed ${seed}`);
      assert.ok(pieces.every((piece) => Buffer.from(piece).toString("utf8").endsWith("\n\n")));
      assert.deepEqual(meter.usage, { promptTokens: 12, completionTokens: 3, cachedTokens: 4, reasoningTokens: 1 });
      assert.equal(kept.length, 1);
      assert.equal(kept[0]!.id, "resp_1");
      assert.ok(meter.firstTokenAt !== undefined);
    }
  });

  test("the response is kept before the event that ends it reaches the client", async () => {
    const order: string[] = [];
    const meter = new UsageMeter();
    const source = passThroughResponsesStream(fromPieces([stream(completed)]), { usage: parseResponsesUsage, keep: async () => void order.push("kept") }, meter);
    for await (const piece of source) order.push(Buffer.from(piece).toString("utf8").includes("response.completed") ? "end" : "piece");
    assert.deepEqual(order, ["kept", "end"]);
  });

  test("an incomplete answer is kept; a failed one and an error event are recorded, not kept", async () => {
    assert.equal((await relay(stream({ type: "response.incomplete", response: { ...base, status: "incomplete", output: [item] } }), 2)).kept.length, 1);
    const failed = await relay(stream({ type: "response.failed", response: { ...base, status: "failed", output: [], error: { code: "server_error", message: "It broke" } } }), 3);
    assert.equal(failed.kept.length, 0);
    assert.equal(failed.meter.error?.message, "It broke");
    const error = await relay(stream({ type: "error", code: "server_error", message: "Overloaded" }), 4);
    assert.equal(error.meter.error?.message, "Overloaded");
  });

  test("no usage: the deltas are estimated; no end event: truncated; garbage first: fails over", async () => {
    const { meter } = await relay(stream(completed, { usage: false }), 5);
    assert.equal(meter.usage, undefined);
    assert.equal(meter.generatedText, "Hi there");
    await assert.rejects(relay(stream(undefined), 6), /ended before/);
    await assert.rejects(relay(Buffer.from("event: response.created\ndata: {oops\n\n"), 1), /could not read/);
  });
});
