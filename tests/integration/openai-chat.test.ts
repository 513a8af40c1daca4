import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

let upstream: FakeUpstream;
let gateway: Gateway;
let key: string;
let client: OpenAI;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway();
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "fake openai",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["gpt-test", "fake-no-usage", "fake-tools", "fake-error", "fake-slow-stream"],
    modelMap: { "gpt-test": "fake-upstream-model" },
  });
  assert.equal(channel.status, 201);
  assert.equal(channel.body.hasApiKey, true);
  assert.equal(JSON.stringify(channel.body).includes(UPSTREAM_API_KEY), false);
  const token = await gateway.admin("POST", "/api/admin/tokens", { name: "sdk" });
  assert.equal(token.status, 201);
  key = token.body.key;
  assert.match(key, /^sk-[A-Za-z0-9]{48}$/);
  client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

describe("chat completions through an OpenAI-compatible upstream", () => {
  test("non-streaming: answer, usage and the native request the upstream got", async () => {
    const completion = await client.chat.completions.create({
      model: "gpt-test",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hello gateway" },
      ],
      temperature: 0.2,
      // Unknown fields reach OpenAI-type upstreams untouched.
      ...({ custom_field: "kept" } as object),
    });
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.choices[0]!.message.content, "Echo: hello gateway");
    assert.equal(completion.choices[0]!.finish_reason, "stop");
    assert.equal(completion.usage?.prompt_tokens, 11);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 3);
    assert.equal((completion as unknown as Record<string, unknown>).echo_unknown_field, "kept");
    assert.equal(completion.system_fingerprint, "fp_fake");

    const sent = upstream.received.at(-1)!;
    assert.equal(sent.path, "/v1/chat/completions");
    assert.equal(sent.headers.authorization, `Bearer ${UPSTREAM_API_KEY}`);
    assert.equal(sent.body.model, "fake-upstream-model");
    assert.equal(sent.body.temperature, 0.2);
    assert.equal(sent.body.custom_field, "kept");
    assert.equal(JSON.stringify(sent.headers).includes(key), false, "the client's token never goes upstream");
  });

  test("the upstream gets the client's own bytes, with only the model and usage reporting rewritten", async () => {
    const sent = '{ "model" : "gpt-test", "stream": true,\n  "temperature": 1.0, "seed": 1e3,\n  "messages": [{"role":"user","content":"caf\\u00e9 \\"quoted\\" \u2713"}] }';
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: sent,
    });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /data: \[DONE\]/);
    assert.equal(
      upstream.received.at(-1)!.raw,
      '{ "model" : "fake-upstream-model", "stream": true,\n  "temperature": 1.0, "seed": 1e3,\n  "messages": [{"role":"user","content":"caf\\u00e9 \\"quoted\\" \u2713"}] ,"stream_options":{"include_usage":true}}',
    );
  });

  test("a tool call sent without its type goes upstream with it filled in", async () => {
    await client.chat.completions.create({
      model: "gpt-test",
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_1", function: { name: "get_weather", arguments: "{}" } } as never] },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
        { role: "user", content: "thanks" },
      ],
    });
    const messages = upstream.received.at(-1)!.body.messages as { tool_calls?: { type?: string }[] }[];
    assert.equal(messages[1]!.tool_calls![0]!.type, "function");
  });

  test("streaming with include_usage delivers every delta and the final usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "one two three" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usageChunk: OpenAI.Chat.Completions.ChatCompletionChunk | undefined;
    for await (const chunk of stream) {
      if (chunk.usage) usageChunk = chunk;
      const choice = chunk.choices[0];
      if (choice?.delta.content) text += choice.delta.content;
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
    assert.equal(text, "Echo: one two three");
    assert.equal(finish, "stop");
    assert.ok(usageChunk, "usage chunk arrives");
    assert.deepEqual(usageChunk!.choices, []);
    assert.equal(usageChunk!.usage!.completion_tokens, 4);
  });

  test("streaming without include_usage: the gateway asks upstream for usage but hides it", async () => {
    const stream = await client.chat.completions.create({
      model: "gpt-test",
      messages: [{ role: "user", content: "quiet please" }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.ok(chunks.length >= 3);
    assert.ok(
      chunks.every((chunk) => chunk.choices.length === 1),
      "no usage-only chunk",
    );
    assert.ok(
      chunks.every((chunk) => !("usage" in chunk)),
      "no usage field the client did not ask for",
    );
    const sent = upstream.received.at(-1)!;
    assert.deepEqual(sent.body.stream_options, { include_usage: true });
  });

  test("streamed parallel tool calls keep their ids, names and argument fragments", async () => {
    const stream = client.chat.completions.stream({
      model: "fake-tools",
      messages: [{ role: "user", content: "weather and time" }],
      tools: [
        { type: "function", function: { name: "get_weather", parameters: { type: "object" } } },
        { type: "function", function: { name: "get_time", parameters: { type: "object" } } },
      ],
    });
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    assert.equal(final.choices[0]!.finish_reason, "tool_calls");
    assert.deepEqual(
      calls.map((call) => call.type === "function" && [call.id, call.function.name, JSON.parse(call.function.arguments)]),
      [
        ["call_9o", "get_weather", { city: "Paris" }],
        ["call_7x", "get_time", { tz: "CET" }],
      ],
    );
  });

  test("the built-in mock model streams word by word", async () => {
    const stream = await client.chat.completions.create({
      model: "mock-chat",
      messages: [{ role: "user", content: "ping" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) deltas.push(chunk.choices[0].delta.content);
      if (chunk.usage) usage = chunk.usage;
    }
    assert.ok(deltas.length > 5);
    assert.match(deltas.join(""), /mock model.*You said: "ping"/);
    assert.ok(usage && usage.completion_tokens > 0 && usage.prompt_tokens > 0);
  });

  test("GET /v1/models lists what the token may use, with the mock named as such", async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    const ids = models.map((model) => model.id);
    assert.ok(ids.includes("gpt-test") && ids.includes("mock-chat"));
    assert.equal(models.find((model) => model.id === "mock-chat")!.owned_by, "gateway-mock");
    assert.equal(models[0]!.object, "model");
  });

  test("a client that disconnects mid-stream aborts the upstream request", async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "fake-slow-stream", messages: [{ role: "user", content: "long answer" }], stream: true },
      { signal: controller.signal },
    );
    let seen = 0;
    try {
      for await (const chunk of stream) {
        if (chunk.choices[0]?.delta.content) seen += 1;
        if (seen === 3) controller.abort();
      }
    } catch {
      // The SDK may end the loop quietly or throw an abort error; either is a disconnect.
    }
    assert.equal(seen, 3);
    const sent = upstream.received.at(-1)!;
    for (let attempt = 0; attempt < 50 && !sent.closedEarly; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(sent.closedEarly, true);
  });
});
