import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import type { FakeServer } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The Vercel AI SDK's default OpenAI provider speaks the Responses API: generateText with
// a tool and streamText must work through the gateway whatever the upstream.

let gateway: Gateway;
let openaiUpstream: FakeUpstream;
let anthropic: FakeServer & { baseUrl: string };
let gemini: FakeServer & { baseUrl: string };
let provider: ReturnType<typeof createOpenAI>;

before(async () => {
  openaiUpstream = await startFakeOpenAIUpstream();
  anthropic = await startFakeAnthropicUpstream();
  gemini = await startFakeGeminiUpstream();
  gateway = await startGateway();
  for (const channel of [
    { type: "openai", name: "openai", baseUrl: openaiUpstream.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["resp-native", "chat-only-gpt", "fake-tools"] },
    { type: "anthropic", name: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test", "claude-tools"] },
    { type: "gemini", name: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test", "gemini-tools"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
  }
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "ai-sdk" })).body.key as string;
  provider = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key });
});
after(async () => {
  await gateway?.stop();
  await openaiUpstream?.close();
  await anthropic?.close();
  await gemini?.close();
});

const weather = tool({
  description: "Weather for a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temperature: 21 }),
});

describe("AI SDK openai(model), which uses /v1/responses", () => {
  for (const [model, expected] of [
    ["resp-native", "Native: hello there"],
    ["chat-only-gpt", "Echo: hello there"],
    ["claude-test", "Echo: hello there"],
    ["gemini-test", "Echo: hello there"],
  ] as const) {
    test(`${model}: generateText and streamText`, async () => {
      const generated = await generateText({ model: provider(model), prompt: "hello there" });
      assert.equal(generated.text, expected);
      assert.ok((generated.usage.inputTokens ?? 0) > 0);
      const streamed = streamText({ model: provider(model), prompt: "hello there" });
      let text = "";
      for await (const delta of streamed.textStream) text += delta;
      assert.equal(text, expected);
      assert.equal(await streamed.finishReason, "stop");
    });
  }

  for (const model of ["resp-native", "fake-tools", "claude-tools", "gemini-tools"]) {
    test(`${model}: generateText with a tool runs it and sends the result back`, async () => {
      const result = await generateText({ model: provider(model), prompt: "weather in Paris?", tools: { get_weather: weather }, stopWhen: stepCountIs(2) });
      const first = result.steps[0]!;
      assert.equal(first.toolCalls[0]?.toolName, "get_weather");
      assert.equal(first.toolResults[0]?.toolName, "get_weather");
      assert.equal(result.steps.length, 2, "the second step (with the tool result) was answered");
    });
  }
});
