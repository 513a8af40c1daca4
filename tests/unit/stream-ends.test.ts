import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { parseOpenAIUsage } from "@/lib/formats/openai/render-usage";
import { passThroughMessageStream } from "@/lib/providers/anthropic/pass-through-stream";
import { parseAnthropicStream } from "@/lib/providers/anthropic/parse-stream";
import { passThroughGeminiStream } from "@/lib/providers/gemini/pass-through-stream";
import { parseGeminiStream } from "@/lib/providers/gemini/parse-stream";
import { passThroughStream } from "@/lib/providers/openai/pass-through-stream";
import { parseOpenAIStream } from "@/lib/providers/openai/parse-stream";
import { decodeSseBatches } from "@/lib/sse/decode-sse";
import { UsageMeter } from "@/lib/usage/usage-meter";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

// Each vendor stream has two readers: the canonical parser (when the client speaks another
// format) and the byte pass-through (when it speaks the same one). Fed the same bytes, they
// must agree on whether the stream completed, was cut, or failed: every prefix of a
// recorded stream (cut at each event boundary) and streams that fail mid-way go to both.

type Verdict = "complete" | "truncated" | "failed" | "malformed";

const fixture = (...parts: string[]) => fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", ...parts), "utf8");

function verdictOf(error: unknown): Verdict {
  if (isGatewayError(error) && error.code === "upstream_stream_truncated") return "truncated";
  if (isGatewayError(error) && error.code === "invalid_upstream_stream") return "malformed";
  throw error;
}

async function canonicalVerdict(parse: (batches: ReturnType<typeof decodeSseBatches>) => AsyncIterable<StreamEvent[]>, text: string, seed: number): Promise<Verdict> {
  try {
    const batches = await collect(parse(decodeSseBatches(fromPieces(splitAtRandom(Buffer.from(text), seed, 60)))));
    return batches.flat().some((event) => event.type === "error") ? "failed" : "complete";
  } catch (error) {
    return verdictOf(error);
  }
}

async function relayVerdict(
  relay: (source: AsyncIterable<Uint8Array>, meter: UsageMeter) => AsyncIterable<Uint8Array>,
  text: string,
  seed: number,
): Promise<{ verdict: Verdict; output: string }> {
  const meter = new UsageMeter();
  const pieces: Uint8Array[] = [];
  try {
    for await (const piece of relay(fromPieces(splitAtRandom(Buffer.from(text), seed, 60)), meter)) pieces.push(piece);
  } catch (error) {
    return { verdict: verdictOf(error), output: Buffer.concat(pieces).toString("utf8") };
  }
  return { verdict: meter.error ? "failed" : "complete", output: Buffer.concat(pieces).toString("utf8") };
}

/** The stream cut after each of its events (the whole stream last), in its own line ends (Google's are CRLF). */
function prefixes(text: string): string[] {
  const ends = [...text.matchAll(/\r?\n\r?\n/g)].map((match) => match.index + match[0].length);
  return ends.map((end) => text.slice(0, end));
}

interface Vendor {
  name: string;
  recorded: string;
  parse: (batches: ReturnType<typeof decodeSseBatches>) => AsyncIterable<StreamEvent[]>;
  relay: (source: AsyncIterable<Uint8Array>, meter: UsageMeter) => AsyncIterable<Uint8Array>;
  /** Streams with the verdict both readers must reach. */
  cases: { name: string; text: string; verdict: Verdict; relayEndsWith?: string }[];
}

const openAIChunk = (data: Record<string, unknown>) => `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", ...data })}\n\n`;
const openAIText = openAIChunk({ choices: [{ index: 0, delta: { role: "assistant", content: "Hi" }, finish_reason: null }] });
const openAIFinish = openAIChunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
const openAIUsage = openAIChunk({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } });

const anthropicEvent = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const anthropicStart = anthropicEvent("message_start", {
  message: { id: "msg_1", type: "message", role: "assistant", model: "claude", content: [], stop_reason: null, usage: { input_tokens: 5, output_tokens: 1 } },
});
const anthropicText =
  anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }) +
  anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Hi" } }) +
  anthropicEvent("content_block_stop", { index: 0 });
const anthropicDelta = anthropicEvent("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } });

const geminiChunk = (data: Record<string, unknown>) => `data: ${JSON.stringify({ modelVersion: "gemini", responseId: "r1", ...data })}\n\n`;
const geminiText = geminiChunk({ candidates: [{ content: { role: "model", parts: [{ text: "Hi" }] }, index: 0 }] });

const vendors: Vendor[] = [
  {
    name: "OpenAI Chat Completions",
    recorded: fixture("openai", "stream-tool-calls.chunks.txt"),
    parse: parseOpenAIStream,
    relay: (source, meter) => passThroughStream(source, true, { usage: (json) => parseOpenAIUsage(json.usage), outputText: () => "" }, meter),
    cases: [
      { name: "complete with [DONE]", text: `${openAIText + openAIFinish + openAIUsage}data: [DONE]\n\n`, verdict: "complete", relayEndsWith: "data: [DONE]\n\n" },
      {
        name: "a finish reason and usage but no [DONE]: complete, [DONE] added",
        text: openAIText + openAIFinish + openAIUsage,
        verdict: "complete",
        relayEndsWith: `${openAIUsage}data: [DONE]\n\n`,
      },
      { name: "cut before the finish reason", text: openAIText, verdict: "truncated" },
      { name: "an error chunk mid-stream, then the close", text: `${openAIText}data: {"error":{"message":"boom","type":"server_error"}}\n\n`, verdict: "failed" },
      { name: "an error chunk then [DONE]", text: `${openAIText}data: {"error":{"message":"boom"}}\n\ndata: [DONE]\n\n`, verdict: "failed" },
      {
        name: "a content string that says error is not one",
        text: openAIChunk({ choices: [{ index: 0, delta: { content: "error" }, finish_reason: null }] }),
        verdict: "truncated",
      },
      { name: "garbage first", text: "data: {not json\n\n", verdict: "malformed" },
    ],
  },
  {
    name: "Anthropic Messages",
    recorded: fixture("anthropic", "stream-thinking-text-tool.sse"),
    parse: parseAnthropicStream,
    relay: passThroughMessageStream,
    cases: [
      {
        name: "complete with message_stop",
        text: anthropicStart + anthropicText + anthropicDelta + anthropicEvent("message_stop", {}),
        verdict: "complete",
        relayEndsWith: 'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      },
      {
        name: "cut after message_delta: complete, message_stop added",
        text: anthropicStart + anthropicText + anthropicDelta,
        verdict: "complete",
        relayEndsWith: `${anthropicDelta}event: message_stop\ndata: {"type":"message_stop"}\n\n`,
      },
      { name: "cut inside the content", text: anthropicStart + anthropicText, verdict: "truncated" },
      {
        name: "an error event mid-stream",
        text: anthropicStart + anthropicText + anthropicEvent("error", { error: { type: "overloaded_error", message: "Overloaded" } }),
        verdict: "failed",
      },
    ],
  },
  {
    name: "Gemini streamGenerateContent",
    recorded: fixture("gemini", "stream-parallel-calls.sse"),
    parse: parseGeminiStream,
    relay: (source, meter) => passThroughGeminiStream(source, "sse", meter),
    cases: [
      {
        name: "a finish reason completes it",
        text: geminiText + geminiChunk({ candidates: [{ content: { role: "model", parts: [] }, finishReason: "STOP", index: 0 }] }),
        verdict: "complete",
      },
      { name: "a blocked prompt completes it", text: geminiChunk({ promptFeedback: { blockReason: "SAFETY" } }), verdict: "complete" },
      { name: "cut before the finish reason", text: geminiText, verdict: "truncated" },
      { name: "an error chunk mid-stream", text: `${geminiText}data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\n\n`, verdict: "failed" },
    ],
  },
];

for (const vendor of vendors) {
  describe(`${vendor.name}: the canonical reader and the pass-through agree`, () => {
    test("on every prefix of a recorded stream, split anywhere", async () => {
      const cuts = prefixes(vendor.recorded);
      const verdicts: Verdict[] = [];
      for (const [index, text] of cuts.entries()) {
        for (const seed of [1, 7, 31]) {
          const canonical = await canonicalVerdict(vendor.parse, text, seed);
          const relayed = (await relayVerdict(vendor.relay, text, seed)).verdict;
          assert.equal(relayed, canonical, `cut after event ${index + 1} of ${cuts.length} (seed ${seed})`);
          if (seed === 1) verdicts.push(canonical);
        }
      }
      // The recorded stream is complete, and cutting it early truncates it.
      assert.equal(verdicts.at(-1), "complete");
      assert.equal(verdicts[0], "truncated");
    });

    for (const { name, text, verdict, relayEndsWith } of vendor.cases) {
      test(name, async () => {
        assert.equal(await canonicalVerdict(vendor.parse, text, 3), verdict, "canonical reader");
        const relayed = await relayVerdict(vendor.relay, text, 3);
        assert.equal(relayed.verdict, verdict, "pass-through");
        if (relayEndsWith)
          assert.ok(relayed.output.endsWith(relayEndsWith), `the relayed stream ends with ${JSON.stringify(relayEndsWith)}: ${JSON.stringify(relayed.output.slice(-200))}`);
      });
    }
  });
}
