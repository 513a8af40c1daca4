import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { encodeModelId } from "@/lib/providers/bedrock/bedrock-transport";
import { toConverseBody } from "@/lib/providers/bedrock/converse/convert-request";
import { converseResponseEvents, parseConverseStream } from "@/lib/providers/bedrock/converse/parse-stream";
import { readBedrockKey } from "@/lib/providers/bedrock/credentials";
import { eventStreamMessages } from "@/lib/providers/bedrock/event-stream";
import { anthropicSseFromEventStream, toInvokeRequest } from "@/lib/providers/bedrock/invoke";
import { parseBedrockError, THROTTLE_COOL_DOWN_SECONDS } from "@/lib/providers/bedrock/parse-error";
import type { AttemptContext } from "@/lib/providers/provider";
import type { OutgoingRequest } from "@/lib/providers/transport";
import { collect, fromPieces, splitAtRandom } from "../helpers/split-chunks";

// Bedrock's wire formats, read and written: the event stream (split anywhere), Claude's
// events in it as Anthropic's own SSE, Converse's stream and answers as canonical events,
// AWS's error shapes, and the request bodies.

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const FIXTURE = fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "anthropic", "stream-thinking-text-tool.sse"), "utf8");

const frame = (headers: Record<string, string>, payload: unknown) =>
  codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: "string" as const, value }])),
    body: fromUtf8(JSON.stringify(payload)),
  });
const event = (type: string, payload: unknown) => frame({ ":message-type": "event", ":event-type": type, ":content-type": "application/json" }, payload);
const exception = (type: string, message: string) => frame({ ":message-type": "exception", ":exception-type": type, ":content-type": "application/json" }, { message });
const chunk = (data: string) => event("chunk", { bytes: Buffer.from(data).toString("base64") });
const joined = (frames: Uint8Array[]) => Buffer.concat(frames);

async function sse(bytes: Uint8Array, seed: number): Promise<string> {
  return Buffer.concat(await collect(anthropicSseFromEventStream(fromPieces(splitAtRandom(bytes, seed, 40))))).toString("utf8");
}

describe("InvokeModelWithResponseStream as Anthropic's SSE", () => {
  const dataLines = FIXTURE.split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6));

  test("the chunks of a recorded Anthropic stream, split at any byte, come out as that stream byte for byte", async () => {
    const bytes = joined(dataLines.map(chunk));
    for (let seed = 1; seed < 40; seed += 1) assert.equal(await sse(bytes, seed), FIXTURE, `seed ${seed}`);
  });

  test("Bedrock's invocation metrics leave the last event; an event spread over lines is written on one", async () => {
    const stop = JSON.stringify({ type: "message_stop", "amazon-bedrock-invocationMetrics": { inputTokenCount: 3, outputTokenCount: 1 } });
    const delta = JSON.stringify({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } }, null, 2);
    const text = await sse(joined([chunk(delta), chunk(stop)]), 5);
    assert.equal(text, `event: message_delta\ndata: ${JSON.stringify(JSON.parse(delta))}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`);
  });

  test("AWS exceptions inside the stream become Anthropic error events of the matching type", async () => {
    const text = await sse(joined([chunk(dataLines[0]!), exception("throttlingException", "Too many tokens"), exception("modelStreamErrorException", "boom")]), 3);
    const errors = text
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .slice(1)
      .map((line) => JSON.parse(line.slice(6)));
    assert.deepEqual(errors, [
      { type: "error", error: { type: "rate_limit_error", message: "Too many tokens" } },
      { type: "error", error: { type: "api_error", message: "boom" } },
    ]);
  });

  test("an exception before any event fails the attempt as the status it stands for (throttling: 429, cooled down)", async () => {
    await assert.rejects(sse(joined([exception("throttlingException", "Too many tokens"), chunk(dataLines[0]!)]), 2), (error: any) => {
      assert.equal(error.upstreamStatus, 429);
      assert.equal(error.code, "throttlingException");
      assert.equal(error.retryAfterSeconds, THROTTLE_COOL_DOWN_SECONDS);
      return true;
    });
  });

  test("a damaged frame or a stream cut inside a frame is the upstream's failure, never a short success", async () => {
    const bytes = joined(dataLines.slice(0, 3).map(chunk));
    const damaged = Buffer.from(bytes);
    damaged[damaged.length - 30] ^= 0xff;
    await assert.rejects(sse(damaged, 2), { code: "invalid_upstream_stream" });
    await assert.rejects(sse(bytes.subarray(0, bytes.length - 5), 2), { code: "upstream_stream_truncated" });
  });
});

const padded = (payload: Record<string, unknown>) => ({ ...payload, p: "abcdefgh" });
const CONVERSE_STREAM = [
  event("messageStart", padded({ role: "assistant" })),
  event("contentBlockDelta", padded({ contentBlockIndex: 0, delta: { reasoningContent: { text: "Think." } } })),
  event("contentBlockDelta", padded({ contentBlockIndex: 0, delta: { reasoningContent: { signature: "sig-1" } } })),
  event("contentBlockStop", padded({ contentBlockIndex: 0 })),
  event("contentBlockDelta", padded({ contentBlockIndex: 1, delta: { text: "Let me " } })),
  event("contentBlockDelta", padded({ contentBlockIndex: 1, delta: { text: "check." } })),
  event("contentBlockStop", padded({ contentBlockIndex: 1 })),
  event("contentBlockStart", padded({ contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_a1", name: "get_weather" } } })),
  event("contentBlockDelta", padded({ contentBlockIndex: 2, delta: { toolUse: { input: '{"ci' } } })),
  event("contentBlockDelta", padded({ contentBlockIndex: 2, delta: { toolUse: { input: 'ty":"Paris"}' } } })),
  event("contentBlockStop", padded({ contentBlockIndex: 2 })),
  event("messageStop", padded({ stopReason: "tool_use" })),
  event("metadata", padded({ usage: { inputTokens: 10, outputTokens: 7, totalTokens: 21, cacheReadInputTokens: 4 }, metrics: { latencyMs: 80 } })),
];

async function converseEvents(bytes: Uint8Array, seed: number): Promise<StreamEvent[]> {
  return (await collect(parseConverseStream(eventStreamMessages(fromPieces(splitAtRandom(bytes, seed, 50))), "amazon.nova-pro-v1:0"))).flat();
}

describe("Converse as canonical events", () => {
  test("ConverseStream, split anywhere: reasoning with its signature, text, one tool call with its streamed input, finish, usage with cache reads", async () => {
    for (let seed = 1; seed < 30; seed += 1) {
      const events = await converseEvents(joined(CONVERSE_STREAM), seed);
      const { id: _id, created: _created, ...start } = events[0] as Extract<StreamEvent, { type: "message-start" }>;
      assert.deepEqual(start, { type: "message-start", model: "amazon.nova-pro-v1:0" });
      assert.deepEqual(events.slice(1), [
        { type: "reasoning-delta", text: "Think." },
        { type: "reasoning-delta", text: "", signature: "sig-1" },
        { type: "text-delta", text: "Let me " },
        { type: "text-delta", text: "check." },
        { type: "tool-call-start", index: 0, id: "tooluse_a1", name: "get_weather" },
        { type: "tool-call-delta", index: 0, argumentsDelta: '{"ci' },
        { type: "tool-call-delta", index: 0, argumentsDelta: 'ty":"Paris"}' },
        { type: "finish", reason: "tool-calls" },
        { type: "usage", usage: { promptTokens: 14, completionTokens: 7, cachedTokens: 4, cacheWriteTokens: undefined } },
      ]);
    }
  });

  test("an exception inside the stream ends it with an error event; a stream cut before messageStop is truncated", async () => {
    const events = await converseEvents(joined([...CONVERSE_STREAM.slice(0, 5), exception("throttlingException", "slow down")]), 4);
    const last = events.at(-1) as Extract<StreamEvent, { type: "error" }>;
    assert.equal(last.type, "error");
    assert.equal(last.error.status, 429);
    assert.match(last.error.message, /throttlingException: slow down/);
    await assert.rejects(converseEvents(joined(CONVERSE_STREAM.slice(0, 6)), 4), { code: "upstream_stream_truncated" });
  });

  test("a Converse answer: blocks in order, stop reason, usage", () => {
    const events = [
      ...converseResponseEvents(
        {
          output: { message: { role: "assistant", content: [{ text: "Hi" }, { toolUse: { toolUseId: "t1", name: "f", input: { a: 1 } } }] } },
          stopReason: "max_tokens",
          usage: { inputTokens: 5, outputTokens: 2, totalTokens: 9, cacheWriteInputTokens: 2 },
        },
        "m",
      ),
    ];
    assert.deepEqual(events.slice(1), [
      { type: "text-delta", text: "Hi" },
      { type: "tool-call-start", index: 0, id: "t1", name: "f" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"a":1}' },
      { type: "finish", reason: "length" },
      { type: "usage", usage: { promptTokens: 7, completionTokens: 2, cachedTokens: undefined, cacheWriteTokens: 2 } },
    ]);
    assert.throws(() => [...converseResponseEvents({ nothing: true }, "m")], { code: "invalid_upstream_response" });
  });
});

const context = () => ({ warnings: [] as string[], signal: new AbortController().signal }) as unknown as AttemptContext;

describe("Converse request bodies", () => {
  test("turns merged and opened by the user, tool results first, tools and choice, inference settings; what Converse lacks is warned about", async () => {
    const request: ChatRequest = {
      model: "nova",
      stream: false,
      system: "Be brief.",
      maxTokens: 100,
      temperature: 1.4,
      topK: 5,
      stop: ["END"],
      tools: [{ name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } } }],
      toolChoice: { type: "tool", name: "get_weather" },
      messages: [
        { role: "assistant", content: [{ type: "text", text: "Hello." }] },
        { role: "user", content: [{ type: "text", text: "Weather?" }] },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "unsigned" },
            { type: "tool-call", id: "call.1", name: "get_weather", arguments: '{"city":"Paris"}' },
          ],
        },
        { role: "user", content: [{ type: "text", text: "(also this)" }] },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "call.1", content: "21", isError: true }] },
      ],
    };
    const ctx = context();
    const body = await toConverseBody(request, ctx);
    assert.deepEqual(body, {
      messages: [
        { role: "user", content: [{ text: "..." }] },
        { role: "assistant", content: [{ text: "Hello." }] },
        { role: "user", content: [{ text: "Weather?" }] },
        { role: "assistant", content: [{ toolUse: { toolUseId: "call_1", name: "get_weather", input: { city: "Paris" } } }] },
        { role: "user", content: [{ toolResult: { toolUseId: "call_1", content: [{ text: "21" }], status: "error" } }, { text: "(also this)" }] },
      ],
      system: [{ text: "Be brief." }],
      inferenceConfig: { maxTokens: 100, temperature: 1, stopSequences: ["END"] },
      toolConfig: {
        tools: [{ toolSpec: { name: "get_weather", description: "Weather", inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } } } }],
        toolChoice: { tool: { name: "get_weather" } },
      },
    });
    assert.equal(ctx.warnings.length, 3, ctx.warnings.join("\n"));
  });

  test("a history of tool calls without tool definitions declares the tools it calls", async () => {
    const ctx = context();
    const body = await toConverseBody(
      {
        model: "nova",
        stream: false,
        messages: [
          { role: "user", content: [{ type: "text", text: "Weather?" }] },
          { role: "assistant", content: [{ type: "tool-call", id: "c1", name: "lookup", arguments: "{}" }] },
          { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", content: "" }] },
        ],
      },
      ctx,
    );
    assert.deepEqual((body.toolConfig as { tools: unknown[] }).tools, [
      { toolSpec: { name: "lookup", description: "A tool called earlier in this conversation.", inputSchema: { json: { type: "object", properties: {} } } } },
    ]);
    assert.deepEqual((body.messages as any[])[2].content[0].toolResult.content, [{ text: "(empty)" }], "Converse refuses blank text");
  });
});

describe("InvokeModel request bodies", () => {
  const request = (body: string | Buffer, beta?: string): OutgoingRequest => ({
    url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/x/invoke",
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...(beta ? { "anthropic-beta": beta } : {}) },
    body,
  });

  test("the client's bytes lose model and stream and gain Bedrock's version and the beta flags, once each", () => {
    const sent = request(Buffer.from('{"model":"claude","max_tokens":5,"messages":[],"stream":true}'), "a-1, b-2,a-1");
    toInvokeRequest(sent);
    assert.equal(sent.body!.toString(), '{"max_tokens":5,"messages":[],"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["a-1","b-2"]}');
    assert.deepEqual(sent.headers, { "content-type": "application/json" });
    assert.ok(Buffer.isBuffer(sent.body), "a Buffer, hashed and sent as is");
    const serialised = request(JSON.stringify({ model: "claude", stream: false, max_tokens: 5, messages: [] }));
    toInvokeRequest(serialised);
    assert.deepEqual(JSON.parse(serialised.body!.toString()), { max_tokens: 5, messages: [], anthropic_version: "bedrock-2023-05-31" });
  });
});

describe("AWS's errors", () => {
  const headers = (type: string) => ({ "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` });

  test("each exception gets the status the routing core acts on; throttling cools down; keys never show", () => {
    const cases: [string, number][] = [
      ["ThrottlingException", 429],
      ["ValidationException", 400],
      ["AccessDeniedException", 403],
      ["UnrecognizedClientException", 403],
      ["ModelNotReadyException", 503],
      ["ServiceUnavailableException", 503],
      ["ModelTimeoutException", 408],
      ["InternalServerException", 500],
    ];
    for (const [type, status] of cases) {
      const error = parseBedrockError(400, JSON.stringify({ message: `about AKIAEXAMPLEKEY1 ${type}` }), headers(type), ["AKIAEXAMPLEKEY1"])!;
      assert.equal(error.status, status, type);
      assert.equal(error.upstreamStatus, status, type);
      assert.equal(error.code, type);
      assert.ok(!error.message.includes("AKIAEXAMPLEKEY1"));
      assert.equal(error.retryAfterSeconds, status === 429 ? THROTTLE_COOL_DOWN_SECONDS : undefined);
    }
    const typed = parseBedrockError(403, JSON.stringify({ __type: "com.amazon.coral.service#UnrecognizedClientException", Message: "The security token is invalid." }), {}, [])!;
    assert.equal(typed.code, "UnrecognizedClientException");
    assert.match(typed.message, /security token is invalid/);
    assert.equal(parseBedrockError(502, "<html>bad gateway</html>", {}, []), undefined, "not AWS's shape: left to the format's parser");
    const mismatch = parseBedrockError(
      403,
      JSON.stringify({
        message:
          "The request signature we calculated does not match the signature you provided.\n\nThe Canonical String for this request should have been\n'POST\n/model\nx-amz-security-token:FwoGZXIvYXdzEXAMPLE'",
      }),
      headers("InvalidSignatureException"),
      ["FwoGZXIvYXdzEXAMPLE"],
    )!;
    assert.equal(mismatch.message, "Bedrock InvalidSignatureException: The request signature we calculated does not match the signature you provided.");
  });
});

describe("Bedrock keys and paths", () => {
  test("AWS credentials as JSON, a Bedrock API key, or JSON that is neither (refused without echoing it)", () => {
    assert.deepEqual(readBedrockKey('{"accessKeyId":"AKIA1","secretAccessKey":"s3cr3t","sessionToken":"tok"}'), {
      kind: "aws",
      credentials: { accessKeyId: "AKIA1", secretAccessKey: "s3cr3t", sessionToken: "tok" },
    });
    assert.deepEqual(readBedrockKey("ABSKQmVkcm9ja0FQSUtleQ"), { kind: "api-key", key: "ABSKQmVkcm9ja0FQSUtleQ" });
    const invalid = readBedrockKey('{"accessKey":"AKIA1","secret":"hunter2-secret"}');
    assert.equal(invalid.kind, "invalid");
    assert.ok(!JSON.stringify(invalid).includes("hunter2"));
  });

  test("model ids and ARNs are escaped in the path as AWS's SDK escapes them", () => {
    assert.equal(encodeModelId("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0");
    assert.equal(
      encodeModelId("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3"),
      "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Aapplication-inference-profile%2Fa1b2c3",
    );
  });
});
