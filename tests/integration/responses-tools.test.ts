import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { SEARCH_ANSWER, SEARCH_PAGE, SEARCH_QUERY } from "../helpers/scripted-turns";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// Codex's kinds of tools through the official SDK on every kind of upstream: namespace
// tools (flattened for the translated ones, called back with their namespace), OpenAI's
// hosted web search (Anthropic's web search tool, Gemini's Google Search) and hosted
// tools an upstream has no equivalent of (dropped, and said so).

let gateway: Gateway;
let fakes: VendorFakes;
let client: OpenAI;

const UPSTREAMS = [
  { kind: "native Responses", model: "gpt-test" },
  { kind: "chat-only", model: "chat-only-test" },
  { kind: "Anthropic", model: "claude-test" },
  { kind: "Gemini", model: "gemini-test" },
];

const AGENTS: OpenAI.Responses.NamespaceTool = {
  type: "namespace",
  name: "multi_agent_v1",
  description: "Sub-agents you can start and stop.",
  tools: [
    { type: "function", name: "close_agent", description: "Stop an agent", parameters: { type: "object", properties: { id: { type: "string" } } }, strict: false },
    { type: "custom", name: "write_note", description: "A free-form note" },
  ],
};
const SHELL: OpenAI.Responses.FunctionTool = { type: "function", name: "shell", parameters: { type: "object", properties: { command: { type: "string" } } }, strict: false };

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "chat-only-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  client = new OpenAI({ apiKey: (await gateway.admin("POST", "/api/admin/tokens", { name: "tools" })).body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

function noRejections() {
  assert.deepEqual(fakes.openai.rejected, []);
  assert.deepEqual(fakes.anthropic.rejected, []);
  assert.deepEqual(fakes.gemini.rejected, []);
}

async function logRow(requestId: string | null): Promise<any> {
  let row: any;
  await eventually(async () => {
    row = ((await gateway.admin("GET", "/api/admin/logs?limit=50")).body.data as any[]).find((entry) => entry.id === requestId);
    assert.ok(row);
  });
  return row;
}

describe("namespace tools on every upstream", () => {
  for (const { kind, model } of UPSTREAMS) {
    test(`${kind}: a namespaced call comes back with its namespace, whole and streamed, and its output reaches the upstream`, async () => {
      const request: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model, input: "Please call the tool close_agent", tools: [AGENTS, SHELL], store: false };
      const whole = await client.responses.create(request);
      const call = whole.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall | undefined;
      assert.ok(call, JSON.stringify(whole.output));
      assert.equal(call.name, "close_agent");
      assert.equal(call.namespace, "multi_agent_v1");

      const stream = client.responses.stream({ ...request, stream: undefined });
      const added: string[] = [];
      stream.on("response.output_item.added", (event) => {
        if (event.item.type === "function_call") added.push(`${event.item.namespace}/${event.item.name}`);
      });
      const streamed = (await stream.finalResponse()).output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
      assert.deepEqual(added, ["multi_agent_v1/close_agent"]);
      assert.equal(streamed.namespace, "multi_agent_v1");
      assert.equal(streamed.name, "close_agent");

      const answer = await client.responses.create({
        model,
        tools: [AGENTS, SHELL],
        store: false,
        input: [
          { role: "user", content: "Please call the tool close_agent" },
          { type: "function_call", call_id: call.call_id, namespace: "multi_agent_v1", name: "close_agent", arguments: call.arguments },
          { type: "function_call_output", call_id: call.call_id, output: "agent 7 closed" },
        ],
      });
      assert.match(answer.output_text, /Tool said: .*agent 7 closed/);
      noRejections();
    });

    test(`${kind}: a custom tool inside a namespace is called as a custom tool`, async () => {
      const response = await client.responses.create({ model, input: "Now call the tool write_note", tools: [AGENTS], store: false });
      const call = response.output.find((item) => item.type === "custom_tool_call" || item.type === "function_call") as OpenAI.Responses.ResponseCustomToolCall;
      assert.equal(call?.type, "custom_tool_call", JSON.stringify(response.output));
      assert.equal(call.name, "write_note");
      assert.equal(call.namespace, "multi_agent_v1");
      noRejections();
    });
  }

  test("translated upstreams get one flat name per namespaced tool, within every vendor's limits", async () => {
    const chat = fakes.openai.received.findLast((request) => request.path === "/v1/chat/completions")!.body as any;
    assert.ok(
      chat.tools.some((tool: any) => tool.function.name === "multi_agent_v1__close_agent"),
      JSON.stringify(chat.tools),
    );
    const anthropic = fakes.anthropic.received.at(-1)!.body;
    assert.ok(anthropic.tools.some((tool: any) => tool.name === "multi_agent_v1__write_note"));
    const gemini = fakes.gemini.received.at(-1)!.body;
    assert.ok(gemini.tools[0].functionDeclarations.some((declaration: any) => declaration.name === "multi_agent_v1__write_note"));

    // Too long and with a dot: shortened with a hash, and still found on the way back.
    const long: OpenAI.Responses.NamespaceTool = { ...AGENTS, name: `team.${"x".repeat(70)}` };
    await client.responses.create({ model: "claude-test", input: "hello", tools: [long], store: false });
    const sent = fakes.anthropic.received.at(-1)!.body.tools[0].name as string;
    assert.ok(sent.length <= 64 && /^[a-zA-Z_][a-zA-Z0-9_-]*$/.test(sent), sent);
    const response = await client.responses.create({ model: "claude-test", input: `call the tool ${sent}`, tools: [long], store: false });
    const call = response.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    assert.equal(call.namespace, long.name);
    assert.equal(call.name, "close_agent");
    noRejections();
  });
});

describe("hosted tools", () => {
  // Codex declares its search like this, beside client_metadata that only OpenAI reads.
  const webSearch = { type: "web_search", external_web_access: false } as OpenAI.Responses.Tool;
  const extra = { client_metadata: { session: "s-1" }, prompt_cache_key: "k-1", safety_identifier: "u-1" };

  test("native Responses: web_search and OpenAI-only fields go up as sent; the search comes back as OpenAI made it", async () => {
    const response = await client.responses.create({
      model: "gpt-test",
      input: "search the web for gateway news",
      tools: [webSearch],
      ...extra,
    } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const sent = fakes.openai.received.at(-1)!.body as any;
    assert.deepEqual(sent.client_metadata, extra.client_metadata);
    assert.equal(sent.prompt_cache_key, "k-1");
    assert.deepEqual(sent.tools, [webSearch]);
    assert.equal(response.output[0]?.type, "web_search_call");
  });

  for (const { kind, model } of UPSTREAMS.slice(2)) {
    test(`${kind}: web_search runs on the vendor's own search and comes back as a web_search_call with a url_citation, whole and streamed`, async () => {
      const request = { model, input: "search the web for gateway news", tools: [webSearch], store: false, ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming;
      const whole = await client.responses.create(request);
      const search = whole.output.find((item) => item.type === "web_search_call") as OpenAI.Responses.ResponseFunctionWebSearch | undefined;
      assert.ok(search, JSON.stringify(whole.output));
      assert.equal(search.status, "completed");
      assert.equal((search.action as OpenAI.Responses.ResponseFunctionWebSearch.Search).query, SEARCH_QUERY);
      assert.match(whole.output_text, new RegExp(SEARCH_ANSWER));
      const message = whole.output.findLast((item) => item.type === "message") as OpenAI.Responses.ResponseOutputMessage;
      const text = message.content[0] as OpenAI.Responses.ResponseOutputText;
      const citation = text.annotations[0] as OpenAI.Responses.ResponseOutputText.URLCitation;
      assert.equal(citation?.url, SEARCH_PAGE.url, JSON.stringify(text));
      assert.equal(text.text.slice(citation.start_index, citation.end_index), SEARCH_ANSWER);

      const stream = client.responses.stream({ ...request, stream: undefined });
      const types = new Set<string>();
      stream.on("event", (event) => types.add(event.type));
      const final = await stream.finalResponse();
      assert.ok(types.has("response.web_search_call.completed") && types.has("response.output_text.annotation.added"), [...types].join());
      const streamedText = (final.output.findLast((item) => item.type === "message") as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
      assert.deepEqual(
        streamedText.annotations.map((annotation) => (annotation as { url: string }).url),
        [SEARCH_PAGE.url],
      );
      noRejections();
      // The fields only OpenAI reads mean nothing to the translation.
      const sent = (model.startsWith("claude") ? fakes.anthropic : fakes.gemini).received.at(-1)!.body;
      assert.equal(sent.client_metadata, undefined);
      assert.equal(sent.prompt_cache_key, undefined);
    });
  }

  test("Anthropic gets its web search server tool with the domains and location carried over", async () => {
    const tool = {
      type: "web_search",
      filters: { allowed_domains: ["example.com"] },
      user_location: { type: "approximate", city: "Paris", country: "FR" },
    } as OpenAI.Responses.Tool;
    await client.responses.create({ model: "claude-test", input: "search the web", tools: [tool], store: false });
    assert.deepEqual(fakes.anthropic.received.at(-1)!.body.tools, [
      { type: "web_search_20250305", name: "web_search", allowed_domains: ["example.com"], user_location: { type: "approximate", city: "Paris", country: "FR" } },
    ]);
    noRejections();
  });

  test("a hosted tool an upstream lacks is dropped with a warning header and log row; the request goes on", async () => {
    for (const { model, dropped } of [
      { model: "chat-only-test", dropped: ["web_search", "file_search"] },
      { model: "claude-test", dropped: ["file_search"] },
      // Gemini refuses Google Search beside function declarations.
      { model: "gemini-test", dropped: ["web_search", "file_search"] },
    ]) {
      const tools = [webSearch, { type: "file_search", vector_store_ids: ["vs_1"] } as OpenAI.Responses.Tool, SHELL];
      const { data, response } = await client.responses
        .create({ model, input: "hello", tools, store: false, ...extra } as OpenAI.Responses.ResponseCreateParamsNonStreaming)
        .withResponse();
      assert.equal(data.status, "completed", model);
      const header = response.headers.get("x-gateway-warning") ?? "";
      for (const name of dropped) assert.match(header, new RegExp(name), `${model}: ${header}`);
      const row = await logRow(response.headers.get("x-request-id"));
      for (const name of dropped)
        assert.ok(
          row.warnings.some((warning: string) => warning.includes(`'${name}'`)),
          JSON.stringify(row.warnings),
        );
    }
    noRejections();
  });

  test("a tool_choice forcing a dropped tool is a 400 naming it", async () => {
    const error = await client.responses
      .create({
        model: "claude-test",
        input: "find it",
        tools: [{ type: "file_search", vector_store_ids: ["vs_1"] } as OpenAI.Responses.Tool],
        tool_choice: { type: "file_search" },
        store: false,
      })
      .catch((thrown: unknown) => thrown);
    assert.ok(error instanceof OpenAI.BadRequestError, String(error));
    assert.match(error.message, /file_search/);
    assert.equal(error.param, "tool_choice");
  });
});
