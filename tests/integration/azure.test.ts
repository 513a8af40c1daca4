import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI, { AzureOpenAI } from "openai";
import { AZURE_KEY, startFakeAzureUpstream, type FakeAzure } from "../helpers/fake-azure-upstream";
import { anthropicFacade, geminiFacade, openAIFacade, type ClientFacade } from "../helpers/sdk-clients";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Azure OpenAI channels: OpenAI's wire format at Azure's URLs with the key in `api-key`,
// in both of Azure's layouts (dated deployment paths, and the v1 API). The fake is first
// driven with the openai SDK's own Azure client, then every client format goes through
// the gateway to it.

let azure: FakeAzure;
let gateway: Gateway;
let key: string;
let clients: ClientFacade[];

const WEATHER = { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const TIME = { name: "get_time", description: "Time in a zone", parameters: { type: "object", properties: { tz: { type: "string" } }, required: ["tz"] } };

before(async () => {
  azure = await startFakeAzureUpstream();
  gateway = await startGateway();
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "azure" })).body.key;
  clients = [openAIFacade(gateway.url, key), anthropicFacade(gateway.url, key), geminiFacade(gateway.url, key)];
});

after(async () => {
  await gateway?.stop();
  await azure?.close();
});

describe("the Azure fake, driven by the openai SDK's own Azure clients", () => {
  test("AzureOpenAI with a dated API version: chat, streamed and not, on a deployment path with api-key", async () => {
    const client = new AzureOpenAI({ endpoint: azure.baseUrl, apiKey: AZURE_KEY, apiVersion: "2024-10-21", deployment: "gpt4o-prod", maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "", messages: [{ role: "user", content: "hi" }] });
    assert.equal(completion.choices[0]!.message.content, "Echo: hi");
    const sent = azure.received.at(-1)!;
    assert.equal(sent.path, "/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21");
    assert.equal(sent.headers["api-key"], AZURE_KEY);
    let text = "";
    for await (const chunk of await client.chat.completions.create({ model: "", messages: [{ role: "user", content: "streamed" }], stream: true })) {
      text += chunk.choices[0]?.delta?.content ?? "";
    }
    assert.equal(text, "Echo: streamed");
  });

  test("the v1 API with the openai client; Azure's refusals", async () => {
    const v1 = new OpenAI({ baseURL: `${azure.baseUrl}/openai/v1`, apiKey: AZURE_KEY, maxRetries: 0 });
    assert.equal((await v1.chat.completions.create({ model: "gpt4o-prod", messages: [{ role: "user", content: "v1" }] })).choices[0]!.message.content, "Echo: v1");
    assert.equal(azure.received.at(-1)!.path, "/openai/v1/chat/completions");
    await assert.rejects(
      v1.chat.completions.create({ model: "no-such-deployment", messages: [{ role: "user", content: "x" }] }),
      (error) => error instanceof OpenAI.NotFoundError && error.code === "DeploymentNotFound",
    );
    const wrongKey = new AzureOpenAI({ endpoint: azure.baseUrl, apiKey: "wrong", apiVersion: "2024-10-21", deployment: "gpt4o-prod", maxRetries: 0 });
    await assert.rejects(wrongKey.chat.completions.create({ model: "", messages: [{ role: "user", content: "x" }] }), (error) => error instanceof OpenAI.AuthenticationError);
    const oldVersion = new AzureOpenAI({ endpoint: azure.baseUrl, apiKey: AZURE_KEY, apiVersion: "2019-01-01", deployment: "gpt4o-prod", maxRetries: 0 });
    await assert.rejects(oldVersion.chat.completions.create({ model: "", messages: [{ role: "user", content: "x" }] }), (error) => error instanceof OpenAI.BadRequestError);
    const filtered = new AzureOpenAI({ endpoint: azure.baseUrl, apiKey: AZURE_KEY, apiVersion: "2024-10-21", deployment: "gpt4o-filtered", maxRetries: 0 });
    await assert.rejects(
      filtered.chat.completions.create({ model: "", messages: [{ role: "user", content: "x" }] }),
      (error) => error instanceof OpenAI.BadRequestError && error.code === "content_filter",
    );
  });
});

describe("Azure channels through the gateway", () => {
  before(async () => {
    const dated = {
      name: "azure dated",
      type: "azure",
      // Pasted with the path Azure's portal shows: the gateway adds it itself.
      baseUrl: `${azure.baseUrl}/openai/deployments/gpt4o-prod/chat/completions`,
      apiKey: AZURE_KEY,
      settings: { apiVersion: "2024-10-21" },
      models: ["gpt-4o", "tools-model", "filtered-model", "embed"],
      modelMap: { "gpt-4o": "gpt4o-prod", "tools-model": "gpt4o-tools", "filtered-model": "gpt4o-filtered", embed: "embed-prod" },
    };
    const created = await gateway.admin("POST", "/api/admin/channels", dated);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.baseUrl, azure.baseUrl);
    assert.deepEqual(created.body.settings, { apiVersion: "2024-10-21" });
    assert.equal(JSON.stringify(created.body).includes(AZURE_KEY), false, "the key is never echoed");
    const v1 = { name: "azure v1", type: "azure", baseUrl: azure.baseUrl, apiKey: AZURE_KEY, models: ["gpt-4o-v1"], modelMap: { "gpt-4o-v1": "gpt4o-prod" } };
    assert.equal((await gateway.admin("POST", "/api/admin/channels", v1)).status, 201);
  });

  test("a channel needs its resource's URL and a well-formed API version", async () => {
    const noUrl = await gateway.admin("POST", "/api/admin/channels", { name: "x", type: "azure", apiKey: AZURE_KEY, models: ["m"] });
    assert.equal(noUrl.status, 400);
    assert.match(JSON.stringify(noUrl.body), /baseUrl/);
    const badVersion = await gateway.admin("POST", "/api/admin/channels", {
      name: "x",
      type: "azure",
      baseUrl: azure.baseUrl,
      apiKey: AZURE_KEY,
      models: ["m"],
      settings: { apiVersion: "latest" },
    });
    assert.equal(badVersion.status, 400);
  });

  for (const stream of [false, true]) {
    test(`every client format to the dated deployment path (${stream ? "stream" : "non-stream"})`, async () => {
      for (const client of clients) {
        const before = azure.received.length;
        const answer = await client.ask("gpt-4o", `hello from ${client.name}`, { stream });
        assert.equal(answer.text, `Echo: hello from ${client.name}`, client.name);
        assert.ok(answer.promptTokens > 0 && answer.completionTokens > 0, client.name);
        const sent = azure.received.slice(before);
        assert.equal(sent.length, 1, client.name);
        assert.equal(sent[0]!.path, "/openai/deployments/gpt4o-prod/chat/completions?api-version=2024-10-21");
        assert.equal(sent[0]!.headers["api-key"], AZURE_KEY);
        assert.equal(sent[0]!.headers.authorization, undefined, "never the client's token, never a Bearer");
      }
    });
  }

  test("a tool round trip from each client format, streamed (Azure's stream opens with its filter-results chunk)", async () => {
    for (const client of clients) {
      const answer = await client.ask("tools-model", "weather please", { stream: true, tools: [WEATHER, TIME] });
      assert.deepEqual(
        answer.toolCalls.map((call) => [call.name, call.args]),
        [
          ["get_weather", { city: "Paris" }],
          ["get_time", { tz: "CET" }],
        ],
        client.name,
      );
    }
  });

  test("the v1 layout: /openai/v1 paths, the deployment as the model", async () => {
    const answer = await clients[1]!.ask("gpt-4o-v1", "v1 please", { stream: true });
    assert.equal(answer.text, "Echo: v1 please");
    const sent = azure.received.at(-1)!;
    assert.equal(sent.path, "/openai/v1/chat/completions");
    assert.equal(sent.body.model, "gpt4o-prod");
  });

  test("Responses: per resource with the api-version (dated), under /openai/v1 otherwise", async () => {
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const dated = await openai.responses.create({ model: "gpt-4o", input: "native?" });
    assert.equal(dated.output_text, "Native: native?");
    assert.equal(azure.received.at(-1)!.path, "/openai/responses?api-version=2024-10-21");
    assert.equal(azure.received.at(-1)!.body.model, "gpt4o-prod");
    const v1 = await openai.responses.create({ model: "gpt-4o-v1", input: "v1?" });
    assert.equal(v1.output_text, "Native: v1?");
    assert.equal(azure.received.at(-1)!.path, "/openai/v1/responses");
  });

  test("embeddings on the deployment path", async () => {
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const result = await openai.embeddings.create({ model: "embed", input: ["a", "b"], encoding_format: "float" });
    assert.equal(result.data.length, 2);
    assert.equal(azure.received.at(-1)!.path, "/openai/deployments/embed-prod/embeddings?api-version=2024-10-21");
  });

  test("Azure's content filter refusal reaches each client as its own 400, code content_filter for OpenAI's", async () => {
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const refused = await openai.chat.completions.create({ model: "filtered-model", messages: [{ role: "user", content: "x" }] }).catch((error: unknown) => error);
    assert.ok(refused instanceof OpenAI.BadRequestError, String(refused));
    assert.equal(refused.code, "content_filter");
    assert.match(refused.message, /content management policy/);
    const anthropic = await clients[1]!.ask("filtered-model", "x", { stream: false }).catch((error: unknown) => error as { status?: number });
    assert.equal((anthropic as { status?: number }).status, 400);
  });

  test("a throttled deployment fails over to another channel; one log row with the upstream's usage", async () => {
    const limited = {
      name: "azure limited",
      type: "azure",
      baseUrl: azure.baseUrl,
      apiKey: AZURE_KEY,
      settings: { apiVersion: "2024-10-21" },
      priority: 10,
      models: ["busy-model"],
      modelMap: { "busy-model": "gpt4o-limited" },
    };
    const spare = { name: "azure spare", type: "azure", baseUrl: azure.baseUrl, apiKey: AZURE_KEY, priority: 0, models: ["busy-model"], modelMap: { "busy-model": "gpt4o-prod" } };
    for (const channel of [limited, spare]) assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
    const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const response = await openai.chat.completions.create({ model: "busy-model", messages: [{ role: "user", content: "busy?" }] }).withResponse();
    assert.equal(response.data.choices[0]!.message.content, "Echo: busy?");
    const requestId = response.response.headers.get("x-request-id");
    const rows = (await gateway.admin("GET", "/api/admin/logs?limit=100")).body.data as { id: string; promptTokens: number; attempts?: unknown }[];
    const mine = rows.filter((row) => row.id === requestId);
    assert.equal(mine.length, 1);
    assert.equal(mine[0]!.promptTokens, 11, "the upstream's own usage");
    const paths = azure.received.slice(-2).map((request) => request.path);
    assert.deepEqual(paths, ["/openai/deployments/gpt4o-limited/chat/completions?api-version=2024-10-21", "/openai/v1/chat/completions"]);
  });
});
