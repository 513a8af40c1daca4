import assert from "node:assert/strict";
import test from "node:test";
import { readRelayedAnswer } from "@/lib/providers/relayed-answer";

const completion = (choices: unknown[]) =>
  Buffer.from(JSON.stringify({ id: "chatcmpl-1", object: "chat.completion", created: 1, model: "m", choices, usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }));
const choice = (index: number, content: string, extra: Record<string, unknown> = {}) => ({ index, message: { role: "assistant", content }, finish_reason: "stop", ...extra });

test("a relayed OpenAI answer reads back as one canonical response, unless it holds more than one can carry", async () => {
  const read = await readRelayedAnswer("openai", completion([choice(0, "Hello")]), "application/json", false);
  assert.equal(read?.text, "Hello");
  assert.deepEqual(read?.usage, { promptTokens: 3, completionTokens: 2, cachedTokens: undefined, reasoningTokens: undefined });
  assert.equal(await readRelayedAnswer("openai", completion([choice(0, "a"), choice(1, "b")]), "application/json", false), undefined, "n > 1");
  assert.equal(await readRelayedAnswer("openai", completion([choice(0, "a", { logprobs: { content: [] } })]), "application/json", false), undefined);
  assert.equal(await readRelayedAnswer("openai", Buffer.from("not json"), "application/json", false), undefined);
});

test("a relayed stream is kept only when it ended properly", async () => {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const complete = `${chunk({ role: "assistant", content: "Hi" }) + chunk({ content: " there" }) + chunk({}, "stop")}data: [DONE]\n\n`;
  assert.equal((await readRelayedAnswer("openai", Buffer.from(complete), "text/event-stream", true))?.text, "Hi there");
  const cut = chunk({ role: "assistant", content: "Hi" });
  assert.equal(await readRelayedAnswer("openai", Buffer.from(cut), "text/event-stream", true), undefined, "no finish, no [DONE]: cut short");
  const failed = `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "c", content: [], usage: { input_tokens: 1, output_tokens: 1 } } })}\n\nevent: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`;
  assert.equal(await readRelayedAnswer("anthropic", Buffer.from(failed), "text/event-stream", true), undefined);
});

test("Gemini's JSON-array stream framing reads like its SSE", async () => {
  const chunks = [
    { candidates: [{ content: { role: "model", parts: [{ text: "One " }] }, index: 0 }] },
    {
      candidates: [{ content: { role: "model", parts: [{ text: "two" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
    },
  ];
  const read = await readRelayedAnswer("gemini", Buffer.from(JSON.stringify(chunks)), "application/json", true);
  assert.equal(read?.text, "One two");
  assert.equal(read?.usage?.completionTokens, 2);
  const twoCandidates = [
    {
      candidates: [
        { content: { parts: [{ text: "a" }] }, index: 0 },
        { content: { parts: [{ text: "b" }] }, index: 1, finishReason: "STOP" },
      ],
    },
  ];
  assert.equal(await readRelayedAnswer("gemini", Buffer.from(JSON.stringify(twoCandidates)), "application/json", true), undefined);
});
