import assert from "node:assert/strict";
import test from "node:test";
import { decodeCachedAnswer, encodeCachedAnswer, replayEvents } from "@/lib/cache/cached-answer";
import { cacheOwner, responseCacheKey } from "@/lib/cache/response-cache-key";
import { collectResponse, type ChatResponse } from "@/lib/canonical/collect-response";
import type { ChatRequest } from "@/lib/canonical/request";

const chat: ChatRequest = { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false };

test("the key covers what changes the answer, not who asks or how it is delivered", () => {
  const owner = cacheOwner({ id: "tok_1", userId: "user_1" });
  const body = { model: "m", messages: [{ role: "user", content: "hi" }], temperature: 0.5 };
  const key = responseCacheKey(owner, "openai", chat, body);
  // Field order, user, metadata and streaming do not matter.
  assert.equal(
    responseCacheKey(owner, "openai", chat, {
      temperature: 0.5,
      messages: body.messages,
      model: "m",
      user: "u",
      metadata: { a: 1 },
      stream: true,
      stream_options: { include_usage: true },
    }),
    key,
  );
  assert.equal(responseCacheKey(owner, "openai", { ...chat, stream: true }, body), key);
  // Parameters, messages, the model, the format and the owner do.
  assert.notEqual(responseCacheKey(owner, "openai", chat, { ...body, temperature: 0.6 }), key);
  assert.notEqual(responseCacheKey(owner, "openai", chat, { ...body, messages: [{ role: "user", content: "hi!" }] }), key);
  assert.notEqual(responseCacheKey(owner, "openai", { ...chat, model: "n" }, body), key);
  assert.notEqual(responseCacheKey(owner, "anthropic", chat, body), key);
  assert.notEqual(responseCacheKey(cacheOwner({ id: "tok_1", userId: "user_2" }), "openai", chat, body), key);
  // Tokens of one user share an owner; a token without a user is its own.
  assert.equal(cacheOwner({ id: "tok_2", userId: "user_1" }), owner);
  assert.equal(cacheOwner({ id: "tok_3", userId: null }), "token:tok_3");
  // Without a client body, the canonical request is the key's input.
  assert.notEqual(responseCacheKey(owner, "gemini", chat, undefined), responseCacheKey(owner, "gemini", { ...chat, temperature: 1 }, undefined));
});

test("a cached answer replays as events that fold back into the same response", async () => {
  const response: ChatResponse = {
    id: "msg_1",
    model: "m",
    created: 1_700_000_000,
    text: "The answer [1].",
    reasoning: "Think.",
    reasoningSignature: "sig",
    toolCalls: [{ id: "call_1", name: "lookup", arguments: '{"q":"x"}' }],
    webSearches: [{ type: "web-search", id: "ws_1", status: "completed", queries: ["x"], sources: [{ url: "https://example.com" }] }],
    citations: [{ type: "citation", url: "https://example.com", start: 4, end: 10 }],
    finishReason: "tool-calls",
    usage: { promptTokens: 10, completionTokens: 5, cachedTokens: 2, cacheWriteTokens: 3 },
  };
  const decoded = decodeCachedAnswer(encodeCachedAnswer(response, 0.25));
  assert.equal(decoded?.costUsd, 0.25);
  async function* batches() {
    yield replayEvents(decoded!.response);
  }
  assert.deepEqual(await collectResponse(batches()), { ...response, stopSequence: undefined });
  assert.equal(decodeCachedAnswer('{"version":2}'), undefined, "an entry this version cannot read is a miss");
  assert.equal(decodeCachedAnswer("not json"), undefined);
});
