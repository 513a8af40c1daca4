import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import type { FakeServer } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// POST /v1/responses through the official SDK's responses.create and responses.stream:
// relayed to an upstream that serves it, translated for a chat-only OpenAI-compatible
// server, for Anthropic and for Gemini.

let gateway: Gateway;
let openai: FakeUpstream;
let anthropic: FakeServer & { baseUrl: string };
let gemini: FakeServer & { baseUrl: string };
let client: OpenAI;

const TEXT_MODELS = [
  { model: "resp-native", expected: "Native: hello there", path: "native" },
  { model: "chat-only-gpt", expected: "Echo: hello there", path: "chat-only" },
  { model: "claude-test", expected: "Echo: hello there", path: "anthropic" },
  { model: "gemini-test", expected: "Echo: hello there", path: "gemini" },
];

before(async () => {
  openai = await startFakeOpenAIUpstream();
  anthropic = await startFakeAnthropicUpstream();
  gemini = await startFakeGeminiUpstream();
  gateway = await startGateway();
  for (const channel of [
    { type: "openai", name: "native", baseUrl: openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["resp-native", "chat-only-gpt", "fake-tools"] },
    { type: "anthropic", name: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test", "claude-tools"] },
    { type: "gemini", name: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test", "gemini-tools"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
  }
  client = new OpenAI({ apiKey: (await gateway.admin("POST", "/api/admin/tokens", { name: "responses" })).body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gateway?.stop();
  await openai?.close();
  await anthropic?.close();
  await gemini?.close();
});

const weatherTool: OpenAI.Responses.FunctionTool = {
  type: "function",
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
  strict: true,
};

describe("/v1/responses on every kind of upstream", () => {
  for (const { model, expected, path } of TEXT_MODELS) {
    test(`${path}: responses.create and responses.stream give the same answer`, async () => {
      const response = await client.responses.create({ model, input: "hello there", instructions: "Be brief." });
      assert.equal(response.object, "response");
      assert.equal(response.status, "completed");
      assert.equal(response.output_text, expected);
      assert.equal(response.model, model);
      assert.ok((response.usage?.input_tokens ?? 0) > 0);

      const events: { type: string; sequence_number: number }[] = [];
      const stream = client.responses.stream({ model, input: [{ role: "user", content: [{ type: "input_text", text: "hello there" }] }] });
      stream.on("event", (event) => events.push(event));
      const final = await stream.finalResponse();
      assert.equal(final.output_text, expected);
      assert.equal(events[0]!.type, "response.created");
      assert.equal(events.at(-1)!.type, "response.completed");
      assert.ok(
        events.every((event, index) => index === 0 || event.sequence_number > events[index - 1]!.sequence_number),
        "sequence numbers increase",
      );
      assert.ok(events.some((event) => event.type === "response.output_text.delta"));
    });
  }

  test("a chat-only server's 404 on /responses is remembered, never reaches the client, and adds no log row", async () => {
    const before = openai.received.filter((request) => request.path === "/v1/responses" && request.body.model === "chat-only-gpt").length;
    await client.responses.create({ model: "chat-only-gpt", input: "again" });
    const after = openai.received.filter((request) => request.path === "/v1/responses" && request.body.model === "chat-only-gpt").length;
    assert.equal(after, before, "not asked again");
    assert.equal(before, 1, "asked once, at the first request");
    const { body } = await gateway.admin("GET", "/api/admin/logs?limit=1000");
    const rows = (body.data as { model: string; endpoint: string; status: number }[]).filter((row) => row.model === "chat-only-gpt");
    assert.equal(rows.length, 3, "one row per client request");
    assert.ok(rows.every((row) => row.status === 200 && row.endpoint === "/v1/responses"));
  });

  for (const model of ["fake-tools", "claude-tools", "gemini-tools"]) {
    test(`${model}: a function tool round trip, whole and streamed`, async () => {
      const first = await client.responses.create({ model, input: "weather in Paris?", tools: [weatherTool] });
      const call = first.output.find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
      assert.ok(call, JSON.stringify(first.output));
      assert.equal(call.name, "get_weather");
      assert.equal(typeof JSON.parse(call.arguments), "object");
      const streamed = await client.responses.stream({ model, input: "weather in Paris?", tools: [weatherTool] }).finalResponse();
      assert.ok(streamed.output.some((item) => item.type === "function_call" && item.name === "get_weather"));

      const echoModel = model === "fake-tools" ? "chat-only-gpt" : model === "claude-tools" ? "claude-test" : "gemini-test";
      const second = await client.responses.create({
        model: echoModel,
        tools: [weatherTool],
        input: [
          { role: "user", content: "weather in Paris?" },
          { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: "function_call_output", call_id: call.call_id, output: '{"temperature":21}' },
        ],
      });
      assert.equal(second.status, "completed");
    });
  }

  test("the native upstream gets function-call items and tools as sent", async () => {
    const first = await client.responses.create({ model: "resp-native", input: "weather?", tools: [weatherTool] });
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    assert.equal(call.type, "function_call");
    const second = await client.responses.create({
      model: "resp-native",
      tools: [weatherTool],
      input: [
        { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: "function_call_output", call_id: call.call_id, output: "sunny" },
      ],
    });
    assert.equal(second.output_text, "Tool said: sunny");
    assert.deepEqual(openai.received.at(-1)!.body.tools, [weatherTool]);
  });

  for (const { model, path } of TEXT_MODELS) {
    test(`${path}: previous_response_id continues the conversation; retrieve, input items and delete work`, async () => {
      const first = await client.responses.create({ model, input: "my name is Ada" });
      const second = await client.responses.create({ model, input: "hello there", previous_response_id: first.id });
      assert.equal(second.previous_response_id, first.id);
      if (path === "native") {
        assert.equal(openai.received.at(-1)!.body.previous_response_id, first.id, "a relayed answer is continued by its own upstream");
      } else {
        const sent = JSON.stringify(path === "anthropic" ? anthropic.received.at(-1)!.body : path === "gemini" ? gemini.received.at(-1)!.body : openai.received.at(-1)!.body);
        assert.ok(sent.includes("my name is Ada"), "the earlier turn travels as history");
        assert.ok(sent.includes(first.output_text), "with the earlier answer");
      }
      const retrieved = await client.responses.retrieve(second.id);
      assert.equal(retrieved.id, second.id);
      assert.equal(retrieved.output_text, second.output_text);
      const items = await client.responses.inputItems.list(second.id);
      assert.equal(items.data.length, 1);
      assert.equal(JSON.stringify(items.data[0]).includes("hello there"), true);
      const deleted = (await client.responses.delete(second.id)) as unknown as { id: string; deleted: boolean };
      assert.deepEqual(deleted, { id: second.id, object: "response", deleted: true });
      const gone = await client.responses.retrieve(second.id).catch((error: unknown) => error);
      assert.ok(gone instanceof OpenAI.NotFoundError);
    });
  }

  test("stored responses belong to their token, and store: false keeps nothing", async () => {
    const mine = await client.responses.create({ model: "claude-test", input: "secret plans" });
    const other = new OpenAI({ apiKey: (await gateway.admin("POST", "/api/admin/tokens", { name: "other" })).body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    assert.ok((await other.responses.retrieve(mine.id).catch((error: unknown) => error)) instanceof OpenAI.NotFoundError);
    const continued = await other.responses.create({ model: "claude-test", input: "and?", previous_response_id: mine.id }).catch((error: unknown) => error);
    assert.ok(continued instanceof OpenAI.NotFoundError);
    assert.equal(continued.param, "previous_response_id");
    const unstored = await client.responses.create({ model: "claude-test", input: "forget me", store: false });
    assert.ok((await client.responses.retrieve(unstored.id).catch((error: unknown) => error)) instanceof OpenAI.NotFoundError);
  });

  test("a tool only OpenAI runs, forced by tool_choice, is a 400 naming it on a translated path; a missing model is a 400", async () => {
    const builtIn = await client.responses
      .create({ model: "claude-test", input: "draw", tools: [{ type: "image_generation" } as unknown as OpenAI.Responses.Tool], tool_choice: { type: "image_generation" } })
      .catch((error: unknown) => error);
    assert.ok(builtIn instanceof OpenAI.BadRequestError, String(builtIn));
    assert.match(builtIn.message, /image_generation/);
    const missing = await client.responses.create({ input: "x" } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming).catch((error: unknown) => error);
    assert.ok(missing instanceof OpenAI.BadRequestError);
    assert.equal(missing.param, "model");
  });
});
