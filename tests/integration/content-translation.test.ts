import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Images, stop sequences and reasoning settings, as each upstream receives them.

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
let gateway: Gateway;
let key: string;
let imageServer: http.Server;
let imageUrl: string;
let fakes: { openai: any; anthropic: any; gemini: any };

before(async () => {
  imageServer = http.createServer((_request, response) => {
    response.writeHead(200, { "content-type": "image/png" });
    response.end(PNG);
  });
  await new Promise<void>((resolve) => imageServer.listen(0, "127.0.0.1", resolve));
  imageUrl = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}/dot.png`;
  fakes = { openai: await startFakeOpenAIUpstream(), anthropic: await startFakeAnthropicUpstream(), gemini: await startFakeGeminiUpstream() };
  // The image server is on loopback: allowed explicitly, as an operator with internal image hosts would.
  gateway = await startGateway({ FETCH_ALLOWED_HOSTS: "127.0.0.1" });
  for (const channel of [
    { type: "openai", baseUrl: fakes.openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test"] },
    { type: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test"] },
    { type: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel })).status, 201);
  }
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "content" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await Promise.all(Object.values(fakes ?? {}).map((fake) => fake.close()));
  imageServer?.close();
});

const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
const dataUrl = `data:image/png;base64,${PNG.toString("base64")}`;
const imageMessage: OpenAI.Chat.ChatCompletionMessageParam = {
  role: "user",
  content: [
    { type: "text", text: "What is in these?" },
    { type: "image_url", image_url: { url: dataUrl } },
    { type: "image_url", image_url: { url: "https://example.com/cat.jpg", detail: "low" } },
  ],
};

describe("images", () => {
  test("OpenAI client -> Anthropic: base64 and URL image sources", async () => {
    await openai().chat.completions.create({ model: "claude-test", messages: [imageMessage] });
    const content = fakes.anthropic.received.at(-1).body.messages[0].content;
    assert.deepEqual(content, [
      { type: "text", text: "What is in these?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
    ]);
  });

  test("OpenAI client -> Gemini: inline data, with URLs downloaded by the gateway", async () => {
    await openai().chat.completions.create({
      model: "gemini-test",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: imageUrl } },
          ],
        },
      ],
    });
    assert.deepEqual(fakes.gemini.received.at(-1).body.contents[0].parts, [{ text: "look" }, { inlineData: { mimeType: "image/png", data: PNG.toString("base64") } }]);
  });

  test("Anthropic and Gemini clients -> OpenAI: data URLs", async () => {
    await new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 }).messages.create({
      model: "gpt-test",
      max_tokens: 10,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: PNG.toString("base64") } },
            { type: "text", text: "describe" },
          ],
        },
      ],
    });
    assert.deepEqual(fakes.openai.received.at(-1).body.messages.at(-1).content, [
      { type: "image_url", image_url: { url: dataUrl } },
      { type: "text", text: "describe" },
    ]);
    await new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } }).models.generateContent({
      model: "gpt-test",
      contents: [{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: PNG.toString("base64") } }, { text: "describe" }] }],
    });
    assert.deepEqual(fakes.openai.received.at(-1).body.messages.at(-1).content[0], { type: "image_url", image_url: { url: dataUrl } });
  });
});

describe("stop sequences and reasoning", () => {
  test("stop reaches Anthropic as stop_sequences and Gemini as stopSequences", async () => {
    await openai().chat.completions.create({ model: "claude-test", messages: [{ role: "user", content: "x" }], stop: "END" });
    assert.deepEqual(fakes.anthropic.received.at(-1).body.stop_sequences, ["END"]);
    await openai().chat.completions.create({ model: "gemini-test", messages: [{ role: "user", content: "x" }], stop: ["A", "B"] });
    assert.deepEqual(fakes.gemini.received.at(-1).body.generationConfig.stopSequences, ["A", "B"]);
  });

  test("reasoning_effort <-> thinking budget <-> thinkingConfig", async () => {
    await openai().chat.completions.create({ model: "claude-test", messages: [{ role: "user", content: "x" }], reasoning_effort: "high" });
    const anthropicBody = fakes.anthropic.received.at(-1).body;
    assert.deepEqual(anthropicBody.thinking, { type: "enabled", budget_tokens: 4096 });
    assert.ok(anthropicBody.max_tokens > 4096);
    await openai().chat.completions.create({ model: "gemini-test", messages: [{ role: "user", content: "x" }], reasoning_effort: "low" });
    assert.deepEqual(fakes.gemini.received.at(-1).body.generationConfig.thinkingConfig, { thinkingBudget: 1024, includeThoughts: true });
    await new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0 }).messages.create({
      model: "gpt-test",
      max_tokens: 20_000,
      thinking: { type: "enabled", budget_tokens: 16_000 },
      messages: [{ role: "user", content: "x" }],
    });
    const openaiBody = fakes.openai.received.at(-1).body;
    assert.equal(openaiBody.reasoning_effort, "high");
    assert.equal(openaiBody.max_completion_tokens, 20_000);
    await new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } }).models.generateContent({
      model: "claude-test",
      contents: "x",
      config: { thinkingConfig: { thinkingBudget: 2000 }, maxOutputTokens: 5000 },
    });
    assert.deepEqual(fakes.anthropic.received.at(-1).body.thinking, { type: "enabled", budget_tokens: 2000 });
  });
});
