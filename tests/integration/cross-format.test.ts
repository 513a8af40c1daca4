import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { anthropicFacade, geminiFacade, openAIFacade, type ClientFacade, type ToolSpec } from "../helpers/sdk-clients";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Every official SDK against every upstream type, through the real server.

let gateway: Gateway;
let key: string;
let fakes: {
  openai: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
  anthropic: Awaited<ReturnType<typeof startFakeAnthropicUpstream>>;
  gemini: Awaited<ReturnType<typeof startFakeGeminiUpstream>>;
};
let clients: ClientFacade[];

const UPSTREAMS = [
  { type: "openai", model: "gpt-test", tools: "fake-tools", prompt: 11, cached: 3 },
  { type: "anthropic", model: "claude-test", tools: "claude-tools", prompt: 26, cached: 5 },
  { type: "gemini", model: "gemini-test", tools: "gemini-tools", prompt: 17, cached: 0 },
  { type: "mock", model: "mock-chat", tools: undefined, prompt: undefined, cached: 0 },
] as const;

const FINISH = { openai: "stop", anthropic: "end_turn", gemini: "STOP" } as const;
const TOOL_FINISH = { openai: "tool_calls", anthropic: "tool_use", gemini: "STOP" } as const;

const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
};
const TIME: ToolSpec = {
  name: "get_time",
  description: "Time in a zone",
  parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] },
};

before(async () => {
  fakes = {
    openai: await startFakeOpenAIUpstream(),
    anthropic: await startFakeAnthropicUpstream(),
    gemini: await startFakeGeminiUpstream(),
  };
  gateway = await startGateway();
  const channels = [
    { type: "openai", baseUrl: fakes.openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test", "fake-tools"] },
    { type: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test", "claude-tools", "claude-overloaded"] },
    { type: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test", "gemini-tools", "gemini-overloaded"] },
  ];
  for (const channel of channels) {
    const created = await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "cross" })).body.key;
  clients = [openAIFacade(gateway.url, key), anthropicFacade(gateway.url, key), geminiFacade(gateway.url, key)];
});

after(async () => {
  await gateway?.stop();
  await Promise.all(Object.values(fakes ?? {}).map((fake) => fake.close()));
});

describe("text, streaming and not, from every SDK to every upstream", () => {
  for (const clientName of ["openai", "anthropic", "gemini"] as const) {
    for (const upstream of UPSTREAMS) {
      for (const stream of [false, true]) {
        test(`${clientName} SDK -> ${upstream.type} upstream (${stream ? "stream" : "non-stream"})`, async () => {
          const client = clients.find((candidate) => candidate.name === clientName)!;
          const prompt = `hello from ${clientName} ${stream ? "streaming" : "plain"}`;
          const answer = await client.ask(upstream.model, prompt, { system: "Be brief.", stream });
          if (upstream.type === "mock") assert.match(answer.text, new RegExp(`You said: "${prompt}"`));
          else assert.equal(answer.text, `Echo: ${prompt}`);
          assert.equal(answer.finish, FINISH[clientName]);
          if (upstream.prompt !== undefined) assert.equal(answer.promptTokens, upstream.prompt, "prompt tokens incl. cache");
          else assert.ok(answer.promptTokens > 0);
          assert.ok(answer.completionTokens > 0);
        });
      }
    }
  }
});

describe("tool calls survive the trip", () => {
  const expected = {
    openai: [
      ["get_weather", { city: "Paris" }],
      ["get_time", { tz: "CET" }],
    ],
    anthropic: [
      ["get_weather", { city: "Paris" }],
      ["get_time", { tz: "CET" }],
    ],
    gemini: [
      ["get_weather", { city: "Paris" }],
      ["get_weather", { city: "Rome" }],
    ],
  } as const;
  for (const clientName of ["openai", "anthropic", "gemini"] as const) {
    for (const upstream of UPSTREAMS.filter((entry) => entry.tools)) {
      test(`${clientName} SDK -> ${upstream.type} upstream, streamed parallel calls`, async () => {
        const client = clients.find((candidate) => candidate.name === clientName)!;
        const answer = await client.ask(upstream.tools!, "weather please", { stream: true, tools: [WEATHER, TIME] });
        assert.deepEqual(
          answer.toolCalls.map((call) => [call.name, call.args]),
          expected[upstream.type as keyof typeof expected],
        );
        const ids = answer.toolCalls.map((call) => call.id);
        if (clientName === "gemini" && upstream.type === "gemini") {
          // Same-format relay: Gemini's own id-less calls reach the client untouched.
          assert.deepEqual(ids, ["", ""]);
          return;
        }
        assert.ok(ids.every(Boolean), "every call has an id");
        assert.equal(new Set(ids).size, ids.length, "ids are unique, even for same-name calls");
        assert.equal(answer.finish, TOOL_FINISH[clientName]);
      });
    }
  }

  test("thinking from Anthropic reaches OpenAI clients as reasoning_content and Gemini clients as thoughts", async () => {
    const [openai, , gemini] = clients;
    assert.equal((await openai!.ask("claude-tools", "x", { stream: true, tools: [WEATHER] })).reasoning, "I should call the weather tool.");
    assert.equal((await openai!.ask("claude-tools", "x", { stream: false, tools: [WEATHER] })).reasoning, "Weather needs a tool.");
    assert.equal((await gemini!.ask("claude-tools", "x", { stream: true, tools: [WEATHER] })).reasoning, "I should call the weather tool.");
    assert.equal((await clients[1]!.ask("gemini-tools", "x", { stream: true, tools: [WEATHER] })).reasoning, "Checking both.");
  });
});

describe("what each upstream received is valid native format", () => {
  test("Anthropic upstream: max_tokens default, top-level system, its own key, never the client's token", async () => {
    await clients[0]!.ask("claude-test", "native check", { system: "Sys prompt.", stream: false });
    const sent = fakes.anthropic.received.at(-1)!;
    assert.equal(sent.headers["x-api-key"], ANTHROPIC_KEY);
    assert.equal(sent.headers.authorization, undefined);
    assert.equal(sent.body.max_tokens, 8192, "default when an OpenAI client omits it");
    assert.equal(sent.body.system, "Sys prompt.");
    assert.ok(sent.body.messages.every((message: { role: string }) => message.role !== "system"));
    assert.equal(JSON.stringify(sent).includes(key), false);
  });

  test("Anthropic client to Anthropic upstream: the body goes as the client's own bytes", async () => {
    const sent = '{"model": "claude-test",  "max_tokens": 64.0, "messages": [{"role": "user", "content": "caf\\u00e9 \u2713"}]}';
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: sent,
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    assert.equal(fakes.anthropic.received.at(-1)!.raw, sent);
  });

  test("Gemini upstream: systemInstruction, generationConfig, x-goog-api-key, schema without JSON-Schema extras", async () => {
    const client = clients[0]! as ReturnType<typeof openAIFacade>;
    await client.client.chat.completions.create({
      model: "gemini-test",
      messages: [
        { role: "system", content: "Sys." },
        { role: "user", content: "hi" },
      ],
      max_tokens: 33,
      stop: ["a", "b"],
      tools: [
        {
          type: "function",
          function: {
            name: "f",
            parameters: { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { q: { type: "string" } }, additionalProperties: false },
          },
        },
      ],
    });
    const sent = fakes.gemini.received.at(-1)!;
    assert.equal(sent.headers["x-goog-api-key"], GEMINI_KEY);
    assert.deepEqual(sent.body.systemInstruction, { parts: [{ text: "Sys." }] });
    assert.deepEqual(sent.body.generationConfig, { maxOutputTokens: 33, stopSequences: ["a", "b"] });
    assert.deepEqual((sent.body as any).tools[0].functionDeclarations[0].parameters, { type: "object", properties: { q: { type: "string" } } });
  });

  test("Gemini SDK's upper-case schema types reach OpenAI and Anthropic upstreams in lower case", async () => {
    await clients[2]!.ask("gpt-test", "schema", { stream: false, tools: [WEATHER] });
    const openaiTool = (fakes.openai.received.at(-1)!.body as any).tools[0].function;
    assert.equal(openaiTool.parameters.type, "object");
    assert.equal(openaiTool.parameters.properties.city.type, "string");
    await clients[2]!.ask("claude-test", "schema", { stream: false, tools: [WEATHER] });
    assert.equal(fakes.anthropic.received.at(-1)!.body.tools[0].input_schema.properties.city.type, "string");
  });

  test("tool results go back paired: Gemini names by call id, Anthropic tool_result right after tool_use", async () => {
    const openai = (clients[0]! as ReturnType<typeof openAIFacade>).client;
    const history = [
      { role: "user" as const, content: "weather in Paris and Rome?" },
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          { id: "call_a", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
          { id: "call.b", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: "tool" as const, tool_call_id: "call_a", content: "21C" },
      { role: "tool" as const, tool_call_id: "call.b", content: '{"temp":25}' },
    ];
    const tools = [{ type: "function" as const, function: WEATHER }];
    await openai.chat.completions.create({ model: "gemini-test", messages: history, tools });
    const gemini = fakes.gemini.received.at(-1)!.body.contents;
    assert.deepEqual(
      gemini[1].parts.map((part: any) => part.functionCall.name),
      ["get_weather", "get_weather"],
    );
    assert.deepEqual(
      gemini[2].parts.map((part: any) => part.functionResponse),
      [
        { name: "get_weather", response: { content: "21C" } },
        { name: "get_weather", response: { temp: 25 } },
      ],
    );
    await openai.chat.completions.create({ model: "claude-test", messages: history, tools });
    const anthropic = fakes.anthropic.received.at(-1)!.body.messages;
    assert.deepEqual(
      anthropic[1].content.map((block: any) => block.id),
      ["call_a", "call_b"],
      "ids sanitized",
    );
    assert.deepEqual(
      anthropic[2].content.map((block: any) => block.tool_use_id),
      ["call_a", "call_b"],
      "results in one user turn",
    );
  });

  test("Gemini clients' id-less calls pair with their responses by name and order", async () => {
    const gemini = (clients[2]! as ReturnType<typeof geminiFacade>).client;
    await gemini.models.generateContent({
      model: "claude-test",
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_weather", args: { city: "Rome" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temp: 21 } } }, { functionResponse: { name: "get_weather", response: { temp: 25 } } }] },
      ],
      config: { tools: [{ functionDeclarations: [{ name: "get_weather", parameters: { type: "OBJECT" as never, properties: { city: { type: "STRING" as never } } } }] }] },
    });
    const messages = fakes.anthropic.received.at(-1)!.body.messages;
    const uses = messages[1].content.map((block: any) => block.id);
    const results = messages[2].content.map((block: any) => [block.tool_use_id, block.content]);
    assert.equal(new Set(uses).size, 2);
    assert.deepEqual(results, [
      [uses[0], '{"temp":21}'],
      [uses[1], '{"temp":25}'],
    ]);
  });

  test("no fake upstream rejected any request as invalid", () => {
    assert.deepEqual(fakes.anthropic.rejected, []);
    assert.deepEqual(fakes.gemini.rejected, []);
  });
});
