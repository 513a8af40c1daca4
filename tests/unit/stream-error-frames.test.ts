import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { anthropicFormat } from "@/lib/formats/anthropic";
import { renderMessageStream } from "@/lib/formats/anthropic/render-stream";
import { geminiFormat } from "@/lib/formats/gemini";
import { renderGeminiStreamError } from "@/lib/formats/gemini/render-error";
import { renderGenerateContentStream } from "@/lib/formats/gemini/render-stream";
import { openAIFormat } from "@/lib/formats/openai";
import { renderChatCompletionStream } from "@/lib/formats/openai/render-stream";
import { newEnvelope } from "@/lib/formats/responses/render-response";
import { renderResponsesStream } from "@/lib/formats/responses/render-stream";
import { renderResponsesStreamError } from "@/lib/formats/responses/render-stream-error";
import type { ResponsesRequest } from "@/lib/formats/responses/schema";
import { truncatedStreamError } from "@/lib/sse/stream-errors";
import { collect } from "../helpers/split-chunks";

// A stream that breaks after it started ends with one error frame per client format,
// the same whether the gateway relayed the upstream's bytes (the frame comes from the
// format's renderStreamError) or translated them (the renderer's own ending).

const broken = truncatedStreamError();

/** Canonical events that start an answer, then the upstream cut. */
async function* cutAfterText(): AsyncGenerator<StreamEvent[]> {
  yield [
    { type: "message-start", id: "m1", model: "m", created: 1 },
    { type: "text-delta", text: "Hel" },
  ];
  throw broken;
}

describe("a broken stream's last frame, per client format", () => {
  test("OpenAI Chat Completions: the error chunk, no [DONE]", async () => {
    const text = (await collect(renderChatCompletionStream(cutAfterText(), { includeUsage: false, fallbackModel: "m" }))).join("");
    const frame = openAIFormat.renderStreamError(broken);
    assert.ok(text.endsWith(frame), text);
    assert.deepEqual(JSON.parse(frame.slice("data: ".length)), { error: { message: broken.message, type: "upstream_error", param: null, code: "upstream_stream_truncated" } });
    assert.ok(!text.includes("[DONE]"));
  });

  test("Anthropic Messages: an error event, no message_stop", async () => {
    const text = (await collect(renderMessageStream(cutAfterText(), { model: "m" }))).join("");
    const frame = anthropicFormat.renderStreamError(broken);
    assert.ok(text.endsWith(frame), text);
    assert.match(frame, /^event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
    assert.ok(!text.includes("message_stop"));
  });

  test("Gemini over SSE: the error object as the last event", async () => {
    const text = (await collect(renderGenerateContentStream(cutAfterText(), { model: "m", sse: true }))).join("");
    const frame = geminiFormat.renderStreamError(broken);
    assert.ok(text.endsWith(frame), text);
    assert.equal(JSON.parse(frame.slice("data: ".length)).error.code, 502);
  });

  test("Gemini as one JSON array: the error is its last element and the array stays valid JSON", async () => {
    const text = (await collect(renderGenerateContentStream(cutAfterText(), { model: "m", sse: false }))).join("");
    assert.ok(text.endsWith(renderGeminiStreamError(broken, { sse: false })), text);
    const elements = JSON.parse(text) as Record<string, unknown>[];
    assert.equal((elements.at(-1)!.error as { status?: string }).status, "UNAVAILABLE");
    // Before any element: the array is opened by the error itself.
    assert.deepEqual(JSON.parse(renderGeminiStreamError(broken, { sse: false, arrayOpened: false })), [
      JSON.parse(JSON.stringify({ error: (elements.at(-1) as { error: unknown }).error })),
    ]);
  });

  test("Responses: the error event relays also end with, with the stream's next sequence number", async () => {
    const envelope = newEnvelope("m", { model: "m", input: "hi" } as ResponsesRequest, new Map());
    const text = (await collect(renderResponsesStream(cutAfterText(), envelope))).join("");
    const events = text
      .trim()
      .split("\n\n")
      .map(
        (event) =>
          JSON.parse(
            event
              .split("\n")
              .find((line) => line.startsWith("data: "))!
              .slice(6),
          ) as Record<string, unknown>,
      );
    const last = events.at(-1)!;
    assert.equal(last.type, "error");
    assert.equal(last.sequence_number, events.length - 1);
    assert.ok(text.endsWith(renderResponsesStreamError(broken, events.length - 1)));
    assert.ok(!events.some((event) => event.type === "response.failed" || event.type === "response.completed"));
    // The open message was closed before the error, as the SDK's accumulator expects.
    assert.ok(events.some((event) => event.type === "response.output_item.done"));
    assert.deepEqual({ type: last.type, code: last.code, message: last.message }, { type: "error", code: "upstream_stream_truncated", message: broken.message });
  });
});
