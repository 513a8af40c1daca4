import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { rewriteJsonObject } from "@/lib/canonical/rewrite-json-object";
import { eventually } from "../helpers/eventually";
import { createServiceAccount, startFakeVertexUpstream, VERTEX_LOCATION, VERTEX_PROJECT, type FakeVertex } from "../helpers/fake-vertex-upstream";
import { anthropicFacade, geminiFacade, openAIFacade, type ClientFacade, type ToolSpec } from "../helpers/sdk-clients";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Vertex AI channels through the real server, with every official SDK: a Gemini model
// and a Claude model on one channel, every client format streamed and not, tools both
// ways, throttling failover, the log row, the shared token, Claude Code's own traffic.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "claude-code-turn.json"), "utf8")) as {
  headers: Record<string, string>;
  request: Record<string, any>;
};

let gateway: Gateway;
let key: string;
let fake: FakeVertex;
let clients: ClientFacade[];
let channelId: string;

const MODEL_MAP = {
  "vx-gemini": "gemini-2.5-flash",
  "vx-claude": "claude-sonnet-4@20250514",
  "vx-gemini-tools": "gemini-tools-2.5",
  "vx-claude-tools": "claude-tools@20250514",
  "vx-embed": "text-embedding-005",
  "vx-busy": "gemini-throttled",
};
const settings = { project: VERTEX_PROJECT, location: VERTEX_LOCATION };
const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

before(async () => {
  fake = await startFakeVertexUpstream();
  gateway = await startGateway();
  const vertex = { type: "vertex", baseUrl: fake.baseUrl, apiKey: fake.serviceAccount.json, settings };
  const created = await gateway.admin("POST", "/api/admin/channels", { ...vertex, name: "vertex", models: Object.keys(MODEL_MAP), modelMap: MODEL_MAP, priority: 1 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  channelId = created.body.id;
  const backup = await gateway.admin("POST", "/api/admin/channels", { ...vertex, name: "vertex-backup", models: ["vx-busy"], modelMap: { "vx-busy": "gemini-2.5-flash" } });
  assert.equal(backup.status, 201, JSON.stringify(backup.body));
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "vertex" })).body.key;
  clients = [openAIFacade(gateway.url, key), anthropicFacade(gateway.url, key), geminiFacade(gateway.url, key)];
});

after(async () => {
  if (gateway) {
    // Neither the key nor a token it bought may be written anywhere.
    gateway.secrets.add(JSON.parse(fake.serviceAccount.json).private_key.split("\n")[1]);
    for (const request of fake.received) {
      const token = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
      if (token) gateway.secrets.add(token);
    }
    await gateway.stop();
  }
  await fake?.close();
});

async function logRow(requestId: string | null) {
  let row: any;
  await eventually(async () => {
    const rows = (await gateway.admin("GET", "/api/admin/logs?limit=50")).body.data as any[];
    row = rows.find((entry) => entry.id === requestId);
    assert.ok(row, `no log row for ${requestId}`);
  });
  return row;
}

describe("the service account's token", () => {
  test("many concurrent first calls buy one token (per gateway process) and share it", async () => {
    const before = fake.tokenRequests;
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => openai.chat.completions.create({ model: "vx-gemini", messages: [{ role: "user", content: `burst ${index}` }] })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.choices[0]!.message.content),
      Array.from({ length: 8 }, (_, index) => `Echo: burst ${index}`),
    );
    assert.equal(fake.tokenRequests - before, gateway.instances.length);
    assert.deepEqual(fake.rejected, []);
  });

  test("calls seconds apart, after the channel cache has reloaded, use the same token", async () => {
    const before = fake.tokenRequests;
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    for (let round = 0; round < 3; round += 1) {
      await Promise.all(gateway.instances.map(() => openai.chat.completions.create({ model: "vx-gemini", messages: [{ role: "user", content: `round ${round}` }] })));
      await new Promise((resolve) => setTimeout(resolve, 1200));
    }
    assert.equal(fake.tokenRequests, before, "no token bought after the first");
  });

  test("a token within minutes of its end is replaced before use", async () => {
    // Issued already inside the 5-minute margin: a process that holds one replaces it before
    // its next call (the test above shows a token outside it reused).
    fake.tokenLifetimeSeconds = 299;
    const account = fake.newServiceAccount();
    gateway.secrets.add(JSON.parse(account.json).private_key.split("\n")[1]);
    const created = await gateway.admin("POST", "/api/admin/channels", {
      name: "vertex-refresh",
      type: "vertex",
      baseUrl: fake.baseUrl,
      apiKey: account.json,
      settings,
      models: ["vx-refresh"],
      modelMap: { "vx-refresh": "gemini-2.5-flash" },
    });
    assert.equal(created.status, 201);
    const ask = (instance: string) =>
      fetch(`${instance}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "vx-refresh", messages: [{ role: "user", content: "hi" }] }),
      }).then(async (response) => assert.equal(response.status, 200, await response.text()));
    for (const instance of gateway.instances) await eventually(() => ask(instance));
    const before = fake.tokenRequests;
    for (const instance of gateway.instances) await ask(instance);
    assert.equal(fake.tokenRequests - before, gateway.instances.length, "each process replaced the token it held");
    fake.tokenLifetimeSeconds = 3600;
  });
});

describe("every client format to a Vertex Gemini model and a Vertex Claude model", () => {
  for (const clientName of ["openai", "anthropic", "gemini"] as const) {
    for (const model of ["vx-gemini", "vx-claude"]) {
      for (const stream of [false, true]) {
        test(`${clientName} SDK -> ${model} (${stream ? "stream" : "non-stream"})`, async () => {
          const client = clients.find((candidate) => candidate.name === clientName)!;
          const prompt = `hello from ${clientName} ${stream ? "streaming" : "plain"}`;
          const answer = await client.ask(model, prompt, { system: "Be brief.", stream });
          assert.equal(answer.text, `Echo: ${prompt}`);
          assert.equal(answer.promptTokens, model === "vx-gemini" ? 19 : 30, "the upstream's own prompt tokens");
          assert.ok(answer.completionTokens > 0);
          assert.deepEqual(fake.rejected, []);
        });
      }
    }
  }

  test("Responses, streamed and not, on both families", async () => {
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    for (const model of ["vx-gemini", "vx-claude"]) {
      const response = await openai.responses.create({ model, input: "respond plainly", store: false });
      assert.equal(response.output_text, "Echo: respond plainly", model);
      const streamed = await openai.responses.stream({ model, input: "respond streaming", store: false }).finalResponse();
      assert.equal(streamed.output_text, "Echo: respond streaming", model);
    }
    assert.deepEqual(fake.rejected, []);
  });

  test("streamed tool calls from every client, and the results sent back the way each family takes them", async () => {
    const expected = {
      "vx-gemini-tools": [
        ["get_weather", { city: "Paris" }],
        ["get_weather", { city: "Rome" }],
      ],
      "vx-claude-tools": [["get_weather", { city: "Paris" }]],
    };
    for (const client of clients) {
      for (const [model, calls] of Object.entries(expected)) {
        const answer = await client.ask(model, "weather please", { stream: true, tools: [WEATHER] });
        assert.deepEqual(answer.toolCalls.map((call) => [call.name, call.args]).slice(0, calls.length), calls, `${client.name} -> ${model}`);
      }
    }
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    const history = [
      { role: "user" as const, content: "weather in Paris?" },
      { role: "assistant" as const, content: null, tool_calls: [{ id: "call_1", type: "function" as const, function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
      { role: "tool" as const, tool_call_id: "call_1", content: "21C" },
    ];
    for (const model of ["vx-gemini", "vx-claude"]) {
      const completion = await openai.chat.completions.create({ model, messages: history, tools: [{ type: "function", function: WEATHER }] });
      assert.equal(completion.choices[0]!.finish_reason, "stop", model);
    }
    const sent = fake.received.filter((request) => request.body?.contents || request.body?.messages).slice(-2);
    assert.deepEqual(
      sent[0]!.body.contents.map((content: any) => content.role),
      ["user", "model", "user"],
    );
    assert.deepEqual(sent[0]!.body.contents[2].parts[0].functionResponse, { name: "get_weather", response: { content: "21C" } });
    assert.equal(sent[1]!.body.messages[2].content[0].type, "tool_result");
    assert.deepEqual(fake.rejected, []);
  });

  test("a Gemini client's content without a role reaches Vertex with one; token counts and embeddings", async () => {
    const response = await fetch(`${gateway.url}/v1beta/models/vx-gemini:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "no role here" }] }] }),
    });
    assert.equal(response.status, 200);
    assert.equal((await response.json()).candidates[0].content.parts[0].text, "Echo: no role here");
    assert.equal(fake.received.at(-1)!.body.contents[0].role, "user");

    const anthropic = (clients[1] as ReturnType<typeof anthropicFacade>).client;
    assert.equal((await anthropic.messages.countTokens({ model: "vx-claude", messages: [{ role: "user", content: "count" }] })).input_tokens, 3131);
    assert.equal((await anthropic.messages.countTokens({ model: "vx-gemini", messages: [{ role: "user", content: "count" }] })).input_tokens, 555);
    const gemini = (clients[2] as ReturnType<typeof geminiFacade>).client;
    assert.equal((await gemini.models.countTokens({ model: "vx-gemini", contents: "count" })).totalTokens, 555);

    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    const embedded = await openai.embeddings.create({ model: "vx-embed", input: ["alpha", "beta gamma"], dimensions: 3 });
    assert.deepEqual(
      embedded.data.map((item) => item.embedding),
      [
        [5, 0.25, 0.5],
        [10, 0.25, 0.5],
      ],
    );
    assert.equal(embedded.usage.prompt_tokens, 5, "the tokens Vertex counted");
    const fromGemini = await gemini.models.embedContent({ model: "vx-embed", contents: ["one", "three"], config: { outputDimensionality: 3 } });
    assert.deepEqual(
      fromGemini.embeddings?.map((embedding) => embedding.values),
      [
        [3, 0.25, 0.5],
        [5, 0.25, 0.5],
      ],
    );
    assert.match(fake.received.at(-1)!.path, /\/publishers\/google\/models\/text-embedding-005:predict$/);
    await assert.rejects(openai.embeddings.create({ model: "vx-claude", input: "x" }), (error: any) => error.status === 404);
    assert.deepEqual(fake.rejected, []);
  });
});

describe("failover, the log, the channel's JSON", () => {
  test("429 RESOURCE_EXHAUSTED fails over to the next channel and cools the first down", async () => {
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    const { data, response } = await openai.chat.completions.create({ model: "vx-busy", messages: [{ role: "user", content: "busy?" }] }).withResponse();
    assert.equal(data.choices[0]!.message.content, "Echo: busy?");
    const row = await logRow(response.headers.get("x-request-id"));
    assert.deepEqual(
      row.attempts.map((attempt: any) => [attempt.channelName, attempt.status]),
      [
        ["vertex", 429],
        ["vertex-backup", 200],
      ],
    );
    const again = await openai.chat.completions.create({ model: "vx-busy", messages: [{ role: "user", content: "still busy?" }] }).withResponse();
    const second = await logRow(again.response.headers.get("x-request-id"));
    assert.deepEqual(
      second.attempts.map((attempt: any) => attempt.channelName),
      ["vertex-backup"],
      "cooling down for Vertex's retry delay",
    );
  });

  test("a token endpoint that cannot be reached fails over and keeps the channel: never blamed on the key", async () => {
    const account = JSON.parse(fake.serviceAccount.json) as Record<string, string>;
    const unreachable = { "token-refused": "http://127.0.0.1:1/token", "token-unresolvable": "http://token.invalid/token" };
    const ids: Record<string, string> = {};
    for (const [name, tokenUri] of Object.entries(unreachable)) {
      const created = await gateway.admin("POST", "/api/admin/channels", {
        type: "vertex",
        baseUrl: fake.baseUrl,
        apiKey: JSON.stringify({ ...account, token_uri: tokenUri }),
        settings,
        name,
        models: ["vx-token-down"],
        modelMap: { "vx-token-down": "gemini-2.5-flash" },
        priority: 5,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      ids[name] = created.body.id;
    }
    const backup = await gateway.admin("POST", "/api/admin/channels", {
      type: "vertex",
      baseUrl: fake.baseUrl,
      apiKey: fake.serviceAccount.json,
      settings,
      name: "token-backup",
      models: ["vx-token-down"],
      modelMap: { "vx-token-down": "gemini-2.5-flash" },
    });
    assert.equal(backup.status, 201, JSON.stringify(backup.body));
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    const { data, response } = await openai.chat.completions.create({ model: "vx-token-down", messages: [{ role: "user", content: "anyone?" }] }).withResponse();
    assert.equal(data.choices[0]!.message.content, "Echo: anyone?");
    const row = await logRow(response.headers.get("x-request-id"));
    assert.deepEqual(row.attempts.map((attempt: any) => attempt.channelName).sort(), ["token-backup", "token-refused", "token-unresolvable"]);
    for (const attempt of row.attempts.filter((entry: any) => entry.channelName !== "token-backup")) {
      assert.match(attempt.error, attempt.channelName === "token-refused" ? /127\.0\.0\.1:1/ : /token\.invalid/, "the error names the host");
      assert.doesNotMatch(attempt.error, /damaged|refused the service account/);
    }
    for (const id of Object.values(ids)) {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${id}`)).body;
      assert.equal(channel.autoDisabledReason, null, "the channel stays in rotation");
    }
  });

  test("a token endpoint that answers with a proxy's page (HTTP 200, no token) fails over too; the channel's recorded error names the host", async () => {
    const portal = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end("<html><body>Sign in to the guest network</body></html>");
    });
    await new Promise<void>((resolve) => portal.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(portal.address() as AddressInfo).port}`;
    try {
      const account = createServiceAccount(`http://${host}/token`, VERTEX_PROJECT, "portal");
      gateway.secrets.add(JSON.parse(account.json).private_key.split("\n")[1]);
      const created = await gateway.admin("POST", "/api/admin/channels", {
        type: "vertex",
        baseUrl: fake.baseUrl,
        apiKey: account.json,
        settings,
        name: "token-portal",
        models: ["vx-portal"],
        modelMap: { "vx-portal": "gemini-2.5-flash" },
        priority: 5,
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await gateway.admin("POST", "/api/admin/channels", {
        type: "vertex",
        baseUrl: fake.baseUrl,
        apiKey: fake.serviceAccount.json,
        settings,
        name: "portal-backup",
        models: ["vx-portal"],
        modelMap: { "vx-portal": "gemini-2.5-flash" },
      });
      const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
      const { data, response } = await openai.chat.completions.create({ model: "vx-portal", messages: [{ role: "user", content: "portal?" }] }).withResponse();
      assert.equal(data.choices[0]!.message.content, "Echo: portal?");
      const row = await logRow(response.headers.get("x-request-id"));
      assert.deepEqual(
        row.attempts.map((attempt: any) => [attempt.channelName, attempt.status]),
        [
          ["token-portal", 0],
          ["portal-backup", 200],
        ],
      );
      // The console's health column: each process writes its channels' last errors every few seconds.
      await eventually(async () => {
        const channel = (await gateway.admin("GET", `/api/admin/channels/${created.body.id}`)).body;
        assert.equal(channel.lastError, `The service account's token endpoint at ${host} answered without an access token.`);
      }, 8000);
      const channel = (await gateway.admin("GET", `/api/admin/channels/${created.body.id}`)).body;
      assert.equal(channel.enabled, true);
      assert.equal(channel.autoDisabledReason, null, "the channel stays in rotation");
    } finally {
      await new Promise((resolve) => portal.close(resolve));
    }
  });

  test("a token endpoint that refuses the grant (invalid_grant) is still a credential problem: the channel is taken out of rotation", async () => {
    // Signed by a key the token endpoint does not know for that account.
    const impostor = JSON.parse(createServiceAccount(fake.tokenUri, VERTEX_PROJECT, "impostor").json);
    gateway.secrets.add(impostor.private_key.split("\n")[1]);
    impostor.client_email = fake.serviceAccount.clientEmail;
    const created = await gateway.admin("POST", "/api/admin/channels", {
      type: "vertex",
      baseUrl: fake.baseUrl,
      apiKey: JSON.stringify(impostor),
      settings,
      name: "token-refused-grant",
      models: ["vx-grant"],
      modelMap: { "vx-grant": "gemini-2.5-flash" },
      priority: 5,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await gateway.admin("POST", "/api/admin/channels", {
      type: "vertex",
      baseUrl: fake.baseUrl,
      apiKey: fake.serviceAccount.json,
      settings,
      name: "grant-backup",
      models: ["vx-grant"],
      modelMap: { "vx-grant": "gemini-2.5-flash" },
    });
    const openai = (clients[0] as ReturnType<typeof openAIFacade>).client;
    const answer = await openai.chat.completions.create({ model: "vx-grant", messages: [{ role: "user", content: "grant?" }] });
    assert.equal(answer.choices[0]!.message.content, "Echo: grant?");
    await eventually(async () => {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${created.body.id}`)).body;
      assert.match(channel.autoDisabledReason ?? "", /HTTP 401: .*HTTP 400, invalid_grant/);
    });
    fake.rejected.length = 0;
  });

  test("one log row per request, with the upstream's own usage", async () => {
    const { response } = await (clients[0] as ReturnType<typeof openAIFacade>).client.chat.completions
      .create({ model: "vx-claude", messages: [{ role: "user", content: "log me please" }] })
      .withResponse();
    const row = await logRow(response.headers.get("x-request-id"));
    assert.equal(row.status, 200);
    assert.equal(row.channelId, channelId);
    assert.equal(row.upstreamModel, "claude-sonnet-4@20250514");
    assert.equal(row.promptTokens, 30);
    assert.equal(row.cachedTokens, 7);
    assert.equal(row.completionTokens, 4);
  });

  test("the channel's JSON never shows the key; bad settings and keys are refused by name", async () => {
    const { body } = await gateway.admin("GET", `/api/admin/channels/${channelId}`);
    assert.equal(body.hasApiKey, true);
    assert.deepEqual(body.settings, settings);
    assert.doesNotMatch(JSON.stringify(body), /PRIVATE KEY|private_key|ya29\./);
    const noLocation = await gateway.admin("POST", "/api/admin/channels", {
      name: "bad",
      type: "vertex",
      apiKey: fake.serviceAccount.json,
      settings: { project: VERTEX_PROJECT },
      models: ["x"],
    });
    assert.equal(noLocation.status, 400);
    assert.match(noLocation.body.error.message, /settings\.location/);
  });
});

describe("Claude Code on a Vertex Claude model", () => {
  test("thinking, cache control and betas reach Vertex intact, the stream comes back byte for byte, cache use is logged", async () => {
    const body = JSON.stringify({ ...fixture.request, model: "vx-claude" });
    const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { ...fixture.headers, "x-api-key": key, "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    const received = fake.received.at(-1)!;
    assert.match(received.path, /\/publishers\/anthropic\/models\/claude-sonnet-4@20250514:streamRawPredict$/);
    assert.equal(
      received.raw,
      rewriteJsonObject(Buffer.from(body), { model: undefined, anthropic_version: "vertex-2023-10-16" })!.toString("utf8"),
      "the client's bytes, model out, version in",
    );
    const { model: _model, ...rest } = fixture.request;
    assert.deepEqual(received.body, { ...rest, anthropic_version: "vertex-2023-10-16" });
    assert.equal(received.headers["anthropic-beta"], fixture.headers["anthropic-beta"]);
    assert.equal(received.headers["anthropic-version"], undefined);
    assert.deepEqual(fake.rejected, []);
    assert.equal(text, fake.streamed.get(received), "the upstream's own event stream");
    const row = await logRow(response.headers.get("x-request-id"));
    assert.equal(row.cachedTokens, 7);
    assert.ok(row.completionTokens > 0);
  });

  test("a beta Vertex refuses is dropped and the request sent again, the log row saying so; the others stay", async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    const { data, response } = await client.beta.messages
      .create({
        model: "vx-claude",
        max_tokens: 50,
        messages: [{ role: "user", content: "betas" }],
        betas: ["interleaved-thinking-2025-05-14", "structured-outputs-2025-11-13"],
      })
      .withResponse();
    assert.equal((data.content[0] as Anthropic.Beta.BetaTextBlock).text, "Echo: betas");
    const [refused, retried] = fake.received.slice(-2);
    assert.equal(refused!.headers["anthropic-beta"], "interleaved-thinking-2025-05-14,structured-outputs-2025-11-13");
    assert.equal(retried!.headers["anthropic-beta"], "interleaved-thinking-2025-05-14");
    const row = await logRow(response.headers.get("x-request-id"));
    assert.ok(
      row.warnings.some((warning: string) => warning.includes("structured-outputs-2025-11-13 dropped")),
      JSON.stringify(row.warnings),
    );
    fake.rejected.length = 0;
  });

  test("through the SDK's beta client, streamed: thinking blocks and signatures of a tool turn come back as Vertex sent them", async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0, defaultHeaders: fixture.headers });
    const message = await client.beta.messages.stream({ ...fixture.request, model: "vx-claude-tools" } as Anthropic.Beta.MessageCreateParamsStreaming).finalMessage();
    assert.equal(message.content[0]?.type, "thinking");
    assert.match((message.content[0] as Anthropic.Beta.BetaThinkingBlock).signature, /^EqQBCgIYAhIM/);
    assert.equal(message.stop_reason, "tool_use");
    assert.deepEqual(fake.rejected, []);
  });
});
