import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import * as genai2 from "@google/genai";
import OpenAI, { toFile } from "openai";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { FAKE_AUDIO, fakeVector } from "../helpers/fake-openai-operations";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import type { FakeServer } from "../helpers/fake-upstream-server";
import { newestSdks } from "../helpers/newest-sdks";
import { startGateway, type Gateway } from "../helpers/start-gateway";

const { genai: genai3 } = await newestSdks();

// The OpenAI endpoints beyond chat, through the official SDK's own methods, on the same
// pipeline as chat: relayed to OpenAI-type channels, embeddings translated for Gemini.

let gateway: Gateway;
let upstream: FakeUpstream;
let gemini: FakeServer & { baseUrl: string };
let client: OpenAI;
let key: string;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gemini = await startFakeGeminiUpstream();
  gateway = await startGateway();
  const channels = [
    {
      type: "openai",
      name: "openai",
      baseUrl: upstream.baseUrl,
      apiKey: UPSTREAM_API_KEY,
      models: ["text-davinci", "embed-small", "image-model", "tts-model", "rerank-model", "whisper-model"],
      modelMap: { "embed-small": "text-embedding-3-small", "image-model": "gpt-image-1" },
    },
    { type: "gemini", name: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-embedding"] },
    { type: "openai", name: "chat only", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["chat-only-model"], capabilities: ["chat"] },
  ];
  for (const channel of channels) assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "operations" })).body.key;
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gateway?.stop();
  await upstream?.close();
  await gemini?.close();
});

const lastUpstreamRequest = () => upstream.received.at(-1)!;

async function logRow(model: string) {
  const { body } = await gateway.admin("GET", "/api/admin/logs?limit=1000");
  return (body.data as { model: string; endpoint: string; status: number; promptTokens: number; completionTokens: number; channelId: string }[]).filter(
    (row) => row.model === model,
  );
}

describe("OpenAI-format operations", () => {
  test("completions.create, whole and streamed with usage", async () => {
    const completion = await client.completions.create({ model: "text-davinci", prompt: "Once upon", max_tokens: 5 });
    assert.equal(completion.choices[0]!.text, " completed: Once upon");
    assert.equal(completion.usage?.total_tokens, 7);
    assert.equal(lastUpstreamRequest().path, "/v1/completions");
    let text = "";
    let usage: OpenAI.CompletionUsage | undefined;
    const stream = await client.completions.create({ model: "text-davinci", prompt: "a time", stream: true, stream_options: { include_usage: true } });
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? "";
      usage = chunk.usage ?? usage;
    }
    assert.equal(text, " completed: a time");
    assert.equal(usage?.completion_tokens, 3);
    const rows = await logRow("text-davinci");
    assert.equal(rows.length, 2);
    assert.ok(rows.every((row) => row.endpoint === "/v1/completions" && row.status === 200 && row.promptTokens === 4));
  });

  test("embeddings.create: the SDK's base64 default and floats, with the model map applied and other fields intact", async () => {
    const result = await client.embeddings.create({ model: "embed-small", input: ["hello", "gateway"], dimensions: 3 });
    assert.deepEqual(
      result.data.map((item) => item.embedding),
      [fakeVector("hello", 3), fakeVector("gateway", 3)],
    );
    const sent = lastUpstreamRequest().body;
    assert.equal(sent.model, "text-embedding-3-small");
    assert.equal(sent.encoding_format, "base64");
    assert.equal(sent.dimensions, 3);
    const floats = await client.embeddings.create({ model: "embed-small", input: "x", encoding_format: "float" });
    assert.deepEqual(floats.data[0]!.embedding, fakeVector("x"));
    const tokens = await client.embeddings.create({ model: "embed-small", input: [[1, 2, 3]], encoding_format: "float" });
    assert.equal(tokens.data[0]!.embedding[0], "tokens:3".length);
  });

  test("embeddings on a Gemini channel come back in OpenAI's shape, base64 and float", async () => {
    const result = await client.embeddings.create({ model: "gemini-embedding", input: ["one", "three"] });
    assert.equal(result.object, "list");
    assert.deepEqual(
      result.data.map((item) => item.embedding),
      [fakeVector("one"), fakeVector("three")],
    );
    assert.ok(result.usage.prompt_tokens > 0);
    const floats = await client.embeddings.create({ model: "gemini-embedding", input: "shorter", dimensions: 2, encoding_format: "float" });
    assert.deepEqual(floats.data[0]!.embedding, fakeVector("shorter", 2));
    const tokenArrays = await client.embeddings.create({ model: "gemini-embedding", input: [[1, 2]] }).catch((error: unknown) => error);
    assert.ok(tokenArrays instanceof OpenAI.BadRequestError);
    assert.equal(tokenArrays.param, "input");
  });

  test("images.generate with url and b64_json answers", async () => {
    const byUrl = await client.images.generate({ model: "image-model", prompt: "a lighthouse" });
    assert.equal(byUrl.data?.[0]?.url, "https://images.example/a%20lighthouse.png");
    const inline = await client.images.generate({ model: "image-model", prompt: "a fox", response_format: "b64_json", n: 2 });
    assert.equal(inline.data?.length, 2);
    assert.equal(Buffer.from(inline.data![0]!.b64_json!, "base64").toString(), "png:a fox");
    const rows = await logRow("image-model");
    assert.equal(rows.length, 2);
    assert.equal(rows[0]!.completionTokens, 1056, "gpt-image usage is logged");
  });

  test("audio.speech.create streams the upstream's bytes back with its content type", async () => {
    const response = await client.audio.speech.create({ model: "tts-model", input: "Hello there", voice: "alloy" });
    assert.equal(response.headers.get("content-type"), "audio/mpeg");
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), FAKE_AUDIO);
    const wav = await client.audio.speech.create({ model: "tts-model", input: "Hi", voice: "alloy", response_format: "wav" });
    assert.equal(wav.headers.get("content-type"), "audio/wav");
  });

  test("images.edit: several image[] parts and a mask reach the upstream in order, bytes and names intact, only the model renamed", async () => {
    const first = Buffer.alloc(70_000, 1);
    const second = Buffer.from("second image bytes");
    const result = await client.images.edit({
      model: "image-model",
      image: [await toFile(first, "first.png", { type: "image/png" }), await toFile(second, "second.webp", { type: "image/webp" })],
      mask: await toFile(Buffer.from("mask"), "mask.png", { type: "image/png" }),
      prompt: "add a hat",
    });
    assert.equal(Buffer.from(result.data![0]!.b64_json!, "base64").toString(), "edited:first.png(70000),second.webp(18):add a hat");
    const form = lastUpstreamRequest().body as unknown as import("../helpers/fake-openai-operations").ReceivedForm;
    assert.deepEqual(
      form.fields.find(([name]) => name === "model"),
      ["model", "gpt-image-1"],
    );
    // openai 7 sends the mask before the images, 6 after them: the images' own order is what counts.
    const parts = form.files.map((file) => [file.name, file.filename, file.contentType, file.bytes.length]);
    assert.deepEqual(
      parts.filter(([name]) => name === "image[]"),
      [
        ["image[]", "first.png", "image/png", 70_000],
        ["image[]", "second.webp", "image/webp", 18],
      ],
    );
    assert.deepEqual(
      parts.filter(([name]) => name !== "image[]"),
      [["mask", "mask.png", "image/png", 4]],
    );
    assert.ok(form.files.find((file) => file.filename === "first.png")!.bytes.equals(first));
  });

  test("audio.transcriptions.create in json, text, srt, vtt and verbose_json", async () => {
    const audio = await toFile(Buffer.alloc(1234, 7), "speech.mp3", { type: "audio/mpeg" });
    const json = await client.audio.transcriptions.create({ model: "whisper-model", file: audio });
    assert.equal(json.text, "heard 1234 bytes of speech.mp3");
    const text = await client.audio.transcriptions.create({ model: "whisper-model", file: audio, response_format: "text" });
    assert.equal(text, "heard 1234 bytes of speech.mp3\n");
    const srt = await client.audio.transcriptions.create({ model: "whisper-model", file: audio, response_format: "srt" });
    assert.match(srt, /^1\n00:00:00,000 --> /);
    const vtt = await client.audio.transcriptions.create({ model: "whisper-model", file: audio, response_format: "vtt" });
    assert.match(vtt, /^WEBVTT/);
    const verbose = await client.audio.transcriptions.create({ model: "whisper-model", file: audio, response_format: "verbose_json" });
    assert.equal(verbose.segments?.[0]?.text, "heard 1234 bytes of speech.mp3");
    const rows = await logRow("whisper-model");
    assert.equal(rows.length, 5);
    assert.ok(
      rows.some((row) => row.promptTokens === 14 && row.completionTokens === 6),
      "token usage of gpt-4o-transcribe-style answers is logged",
    );
  });

  test("an upload without a model, or not multipart, is a 400 before any upstream call", async () => {
    const calls = upstream.received.length;
    const missing = await client.audio.transcriptions.create({ model: "", file: await toFile(Buffer.from("x"), "a.mp3") }).catch((error: unknown) => error);
    assert.ok(missing instanceof OpenAI.BadRequestError);
    assert.equal(missing.param, "model");
    const notMultipart = await fetch(`${gateway.url}/v1/images/edits`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "image-model", prompt: "x" }),
    });
    assert.equal(notMultipart.status, 400);
    assert.equal((await notMultipart.json()).error.code, "invalid_content_type");
    assert.equal(upstream.received.length, calls, "no upstream call");
  });

  test("rerank returns results best first", async () => {
    const response = await fetch(`${gateway.url}/v1/rerank`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "rerank-model", query: "fast gateway", documents: ["a slow train", "a fast gateway for models", "gateway"], top_n: 2 }),
    });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { results: { index: number; relevance_score: number }[] };
    assert.deepEqual(
      body.results.map((result) => result.index),
      [1, 2],
    );
    assert.ok(body.results[0]!.relevance_score >= body.results[1]!.relevance_score);
  });

  test("a missing model is a 400 in OpenAI's shape on every endpoint, before any upstream call", async () => {
    const calls = upstream.received.length;
    for (const [path, body] of [
      ["/v1/completions", { prompt: "hi" }],
      ["/v1/embeddings", { input: "hi" }],
      ["/v1/images/generations", { prompt: "hi" }],
      ["/v1/audio/speech", { input: "hi", voice: "alloy" }],
      ["/v1/rerank", { query: "q", documents: ["d"] }],
    ] as const) {
      const response = await fetch(`${gateway.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 400, path);
      const error = (await response.json()).error;
      assert.equal(error.param, "model", path);
      assert.equal(error.type, "invalid_request_error");
    }
    const badInput = await client.embeddings.create({ model: "embed-small", input: 42 as unknown as string }).catch((error: unknown) => error);
    assert.ok(badInput instanceof OpenAI.BadRequestError);
    assert.equal(upstream.received.length, calls, "no upstream call");
  });

  test("a channel serves only the operations it lists", async () => {
    const error = await client.embeddings.create({ model: "chat-only-model", input: "x" }).catch((thrown: unknown) => thrown);
    assert.ok(error instanceof OpenAI.NotFoundError);
    const chat = await client.chat.completions.create({ model: "chat-only-model", messages: [{ role: "user", content: "still chats" }] });
    assert.match(chat.choices[0]!.message.content ?? "", /still chats/);
  });
});

// Gemini's embedding methods go through the same embeddings operation: any channel that
// embeds serves a Gemini client, and the answer is in Gemini's shape.
for (const lane of [
  { sdk: "@google/genai 3", module: genai3, version: "/v1" },
  { sdk: "@google/genai 2", module: genai2, version: "/v1beta" },
] as const) {
  describe(`Gemini embedding methods (${lane.sdk}, ${lane.version})`, () => {
    const gemini3 = () => new lane.module.GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });

    test("embedContent (the SDK's batchEmbedContents) on a Gemini channel and on an OpenAI channel", async () => {
      const fromGemini = await gemini3().models.embedContent({ model: "gemini-embedding", contents: ["one", "three"], config: { outputDimensionality: 3 } });
      assert.deepEqual(
        fromGemini.embeddings?.map((embedding) => embedding.values),
        [fakeVector("one", 3), fakeVector("three", 3)],
      );
      assert.match(gemini.received.at(-1)!.path, /^\/v1beta\/models\/gemini-embedding:batchEmbedContents/);
      const fromOpenAI = await gemini3().models.embedContent({ model: "embed-small", contents: "hello" });
      assert.deepEqual(
        fromOpenAI.embeddings?.map((embedding) => embedding.values),
        [fakeVector("hello")],
      );
      assert.equal(lastUpstreamRequest().path, "/v1/embeddings");
      assert.equal(lastUpstreamRequest().body.model, "text-embedding-3-small");
      const rows = await logRow("embed-small");
      assert.ok(
        rows.some((row) => row.endpoint === `${lane.version}/models/{model}:batchEmbedContents` && row.status === 200 && row.promptTokens > 0),
        JSON.stringify(rows),
      );
    });

    test(":embedContent by REST: one embedding; a content without text is Gemini's 400", async () => {
      const send = (body: unknown) =>
        fetch(`${gateway.url}${lane.version}/models/embed-small:embedContent`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": key },
          body: JSON.stringify(body),
        });
      const one = await send({ content: { parts: [{ text: "hi" }] } });
      assert.equal(one.status, 200);
      assert.deepEqual(await one.json(), { embedding: { values: fakeVector("hi") } });
      const image = await send({ content: { parts: [{ inlineData: { mimeType: "image/png", data: "AAAA" } }] } });
      assert.equal(image.status, 400);
      const error = ((await image.json()) as { error: { status: string; message: string } }).error;
      assert.equal(error.status, "INVALID_ARGUMENT");
      assert.match(error.message, /text/);
    });
  });
}
