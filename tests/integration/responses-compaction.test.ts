import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { AZURE_KEY, startFakeAzureUpstream, type FakeAzure } from "../helpers/fake-azure-upstream";
import { BEDROCK_CREDENTIALS, BEDROCK_REGION, startFakeBedrockUpstream, type FakeBedrock } from "../helpers/fake-bedrock-upstream";
import { OPENAI_COMPACTION_BLOB, OPENAI_INPUT_TOKENS } from "../helpers/fake-openai-operations";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";
import { newestSdks } from "../helpers/newest-sdks";

// Compaction's stream events are newer than openai 6 (its stream helper throws on them):
// this file drives openai 7, installed apart (tests/helpers/newest-sdks.ts); types from 6.
const { OpenAI: Openai7 } = await newestSdks();

// Compaction through the official SDK on every kind of upstream: OpenAI's own where the
// channel serves /responses/compact (relayed, its item untouched), the gateway's sealed
// summary everywhere else; the follow-up's upstream sees the summary, never the sealed
// item nor the dropped turns.

let gateway: Gateway;
let fakes: VendorFakes;
let bedrock: FakeBedrock;
let azure: FakeAzure;
let client: OpenAI;
let otherClient: OpenAI;
/** What Bedrock's fake refused before these tests (the channel's own checks at creation). */
let bedrockRefusedAtSetup = 0;

const CODEX_TURN = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "codex-turn.json"), "utf8"));

/** What each upstream last received, as text. */
const lastBody = {
  openai: () => fakes.openai.received.at(-1)!,
  anthropic: () => fakes.anthropic.received.at(-1)!,
  gemini: () => fakes.gemini.received.at(-1)!,
  bedrock: () => bedrock.received.at(-1)!,
};

const UPSTREAMS = [
  { kind: "chat-only", model: "chat-only-test", upstream: "openai" },
  { kind: "Anthropic", model: "claude-test", upstream: "anthropic" },
  { kind: "Gemini", model: "gemini-test", upstream: "gemini" },
  { kind: "Bedrock (Claude)", model: "bedrock-claude", upstream: "bedrock" },
  { kind: "Bedrock (Converse)", model: "bedrock-nova", upstream: "bedrock" },
] as const;

const DROPPED = "DROPPED-TURN-7f3a: I edited src/fetch.ts and added retry() with three attempts";
const CONVERSATION = [
  { role: "user", content: "Add a retry to src/fetch.ts" },
  { role: "assistant", content: DROPPED },
  { role: "user", content: "Now run the tests in tests/fetch.test.ts" },
] satisfies OpenAI.Responses.ResponseInputItem[];

const SUMMARY_MARK = "This is a summary of it";
const COMPACTION_ASK = "about to be replaced by a summary";

before(async () => {
  fakes = await startVendorFakes();
  bedrock = await startFakeBedrockUpstream();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["gpt-test", "chat-only-test"], anthropic: ["claude-test"], gemini: ["gemini-test"] });
  const created = await gateway.admin("POST", "/api/admin/channels", {
    name: "bedrock",
    type: "bedrock",
    baseUrl: bedrock.baseUrl,
    settings: { region: BEDROCK_REGION },
    apiKey: JSON.stringify(BEDROCK_CREDENTIALS),
    models: ["bedrock-claude", "bedrock-nova"],
    modelMap: { "bedrock-claude": "anthropic.claude-haiku-4-5-v1:0", "bedrock-nova": "amazon.nova-lite-v1:0" },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  azure = await startFakeAzureUpstream();
  for (const [name, settings] of [
    ["azure-v1", {}],
    ["azure-dated", { apiVersion: "2025-04-01-preview" }],
  ] as const) {
    const added = await gateway.admin("POST", "/api/admin/channels", {
      name,
      type: "azure",
      baseUrl: azure.baseUrl,
      apiKey: AZURE_KEY,
      settings,
      models: [name],
      modelMap: { [name]: "gpt4o-prod" },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
  }
  const key = async (name: string) => (await gateway.admin("POST", "/api/admin/tokens", { name })).body.key as string;
  client = new Openai7({ apiKey: await key("compaction"), baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  otherClient = new Openai7({ apiKey: await key("another"), baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  bedrockRefusedAtSetup = bedrock.rejected.length;
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
  await bedrock?.close();
  await azure?.close();
});

function noRejections() {
  assert.deepEqual(fakes.openai.rejected, []);
  assert.deepEqual(fakes.anthropic.rejected, []);
  assert.deepEqual(fakes.gemini.rejected, []);
  assert.deepEqual(bedrock.rejected.slice(bedrockRefusedAtSetup), []);
}

async function logRow(requestId: string | null): Promise<any> {
  let row: any;
  await eventually(async () => {
    row = ((await gateway.admin("GET", "/api/admin/logs?limit=100")).body.data as any[]).find((entry) => entry.id === requestId);
    assert.ok(row);
  });
  return row;
}

const compactionOf = (output: unknown[]) => output.at(-1) as { type: string; id: string; encrypted_content: string };

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => assert.fail("expected a refusal"),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof Openai7.APIError, String(error));
  return error;
}

describe("POST /v1/responses/compact, then a follow-up", () => {
  test("native Responses upstream: relayed to its /responses/compact, its opaque item passes through untouched both ways", async () => {
    const { data, response } = await client.responses.compact({ model: "gpt-test", input: CONVERSATION }).withResponse();
    assert.equal(fakes.openai.received.at(-1)!.path, "/v1/responses/compact");
    assert.equal(data.object, "response.compaction");
    assert.equal(compactionOf(data.output).encrypted_content, OPENAI_COMPACTION_BLOB);
    const row = await logRow(response.headers.get("x-request-id"));
    assert.equal(row.endpoint, "/v1/responses/compact");
    assert.equal(row.promptTokens, 120);

    const next = await client.responses.create({
      model: "gpt-test",
      input: [...(data.output as OpenAI.Responses.ResponseInputItem[]), { role: "user", content: "What next?" }],
      store: false,
    });
    assert.equal(next.status, "completed");
    const sent = lastBody.openai();
    assert.equal(sent.path, "/v1/responses");
    assert.ok(sent.raw.includes(OPENAI_COMPACTION_BLOB), "OpenAI's item reaches OpenAI as it was");
    noRejections();
  });

  for (const [model, path] of [
    ["azure-v1", "/openai/v1/responses/compact"],
    ["azure-dated", "/openai/responses/compact?api-version=2025-04-01-preview"],
  ]) {
    test(`Azure (${model}): relayed to the resource's /responses/compact, OpenAI's item passes through`, async () => {
      const compacted = await client.responses.compact({ model, input: CONVERSATION });
      assert.equal(azure.received.at(-1)!.path, path);
      assert.equal(azure.received.at(-1)!.body.model, "gpt4o-prod");
      assert.equal(compactionOf(compacted.output).encrypted_content, OPENAI_COMPACTION_BLOB);
      const counted = await client.responses.inputTokens.count({ model, input: CONVERSATION });
      assert.equal(counted.input_tokens, OPENAI_INPUT_TOKENS);
    });
  }

  for (const { kind, model, upstream } of UPSTREAMS) {
    test(`${kind}: the gateway summarises and seals; the follow-up's upstream sees the summary, not the item nor the dropped turns`, async () => {
      const { data, response } = await client.responses.compact({ model, input: CONVERSATION, instructions: "You are a coding agent." }).withResponse();
      assert.equal(data.object, "response.compaction");
      assert.match(data.id, /^resp_/);
      assert.equal(typeof data.created_at, "number");
      const asked = JSON.stringify(lastBody[upstream]().body);
      assert.ok(asked.includes(COMPACTION_ASK) && asked.includes("DROPPED-TURN-7f3a"), `${kind}: the model is asked to summarise the whole conversation`);
      // The user messages as OpenAI keeps them, then one compaction item.
      const kept = data.output.slice(0, -1) as unknown as OpenAI.Responses.ResponseInputMessageItem[];
      assert.deepEqual(
        kept.map((item) => [item.type, item.role, (item.content[0] as { text: string }).text]),
        [
          ["message", "user", "Add a retry to src/fetch.ts"],
          ["message", "user", "Now run the tests in tests/fetch.test.ts"],
        ],
      );
      const item = compactionOf(data.output);
      assert.equal(item.type, "compaction");
      assert.match(item.encrypted_content, /^gwcompact1\./);
      assert.ok(!item.encrypted_content.includes("Echo"), "the summary is sealed, not readable");
      assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0, JSON.stringify(data.usage));
      const row = await logRow(response.headers.get("x-request-id"));
      assert.equal(row.endpoint, "/v1/responses/compact");
      assert.equal(row.status, 200);

      const next = await client.responses.create({
        model,
        input: [...(data.output as OpenAI.Responses.ResponseInputItem[]), { role: "user", content: "What next?" }],
        store: false,
      });
      assert.equal(next.status, "completed");
      const sent = JSON.stringify(lastBody[upstream]().body);
      assert.ok(sent.includes(SUMMARY_MARK), `${kind}: the summary reaches the upstream: ${sent}`);
      assert.ok(sent.includes("Echo:"), `${kind}: the model's own summary is what it gets back`);
      assert.ok(!sent.includes("DROPPED-TURN-7f3a"), `${kind}: the dropped turns stay dropped`);
      assert.ok(!sent.includes("gwcompact1.") && !sent.includes(item.encrypted_content.slice(20, 60)), `${kind}: the sealed item never leaves the gateway`);
      assert.ok(sent.includes("What next?"));
      noRejections();
    });
  }

  test("previous_response_id: the stored conversation is what gets compacted", async () => {
    const first = await client.responses.create({ model: "claude-test", input: CONVERSATION });
    const compacted = await client.responses.compact({ model: "claude-test", previous_response_id: first.id, input: "Also update the changelog" });
    const asked = JSON.stringify(lastBody.anthropic().body);
    assert.ok(asked.includes("DROPPED-TURN-7f3a") && asked.includes("Also update the changelog") && asked.includes(COMPACTION_ASK), asked);
    const kept = compacted.output.slice(0, -1) as unknown as OpenAI.Responses.ResponseInputMessageItem[];
    assert.deepEqual(
      kept.map((item) => (item.content[0] as { text: string }).text),
      ["Add a retry to src/fetch.ts", "Now run the tests in tests/fetch.test.ts", "Also update the changelog"],
    );
    const missing = await refusal(client.responses.compact({ model: "claude-test", previous_response_id: "resp_nothing", input: "x" }));
    assert.equal(missing.status, 404);
  });

  test("the gateway's item compacted on one upstream continues on a native one: OpenAI gets the summary, not the seal", async () => {
    const compacted = await client.responses.compact({ model: "claude-test", input: CONVERSATION });
    await client.responses.create({ model: "gpt-test", input: [...(compacted.output as OpenAI.Responses.ResponseInputItem[]), { role: "user", content: "Go on" }], store: false });
    const sent = lastBody.openai();
    assert.equal(sent.path, "/v1/responses");
    const input = sent.body.input as { type?: string; role?: string; content?: unknown }[];
    assert.ok(!input.some((item) => item.type === "compaction"), JSON.stringify(input));
    assert.ok(
      input.some((item) => item.role === "developer" && String(item.content).includes(SUMMARY_MARK)),
      JSON.stringify(input),
    );
  });

  test("an item sealed for another token, or altered, is a 400 in OpenAI's format", async () => {
    const compacted = await client.responses.compact({ model: "claude-test", input: CONVERSATION });
    const item = compactionOf(compacted.output);
    const followUp = (encrypted_content: string) =>
      [
        { type: "compaction", encrypted_content },
        { role: "user", content: "What next?" },
      ] as OpenAI.Responses.ResponseInputItem[];
    const calls = fakes.anthropic.received.length;

    const foreign = await refusal(otherClient.responses.create({ model: "claude-test", input: followUp(item.encrypted_content), store: false }));
    assert.equal(foreign.status, 400);
    assert.equal(foreign.code, "invalid_encrypted_content");
    assert.equal(foreign.param, "input[0].encrypted_content");
    assert.match(foreign.message, /another API key's owner/);

    const middle = Math.floor(item.encrypted_content.length / 2);
    const flipped = item.encrypted_content.slice(0, middle) + (item.encrypted_content[middle] === "A" ? "B" : "A") + item.encrypted_content.slice(middle + 1);
    const tampered = await refusal(client.responses.create({ model: "claude-test", input: followUp(flipped), store: false }));
    assert.equal(tampered.status, 400);
    assert.equal(tampered.code, "invalid_encrypted_content");
    assert.match(tampered.message, /altered/);

    // The same to a native upstream: refused before anything is sent.
    const native = await refusal(otherClient.responses.compact({ model: "gpt-test", input: followUp(item.encrypted_content) }));
    assert.equal(native.status, 400);
    assert.equal(fakes.anthropic.received.length, calls, "nothing reached the upstream");
  });

  test("OpenAI's own item is a clear 400 on an upstream that cannot read it, and passes through to OpenAI", async () => {
    const input = [
      { type: "compaction", encrypted_content: OPENAI_COMPACTION_BLOB },
      { role: "user", content: "What next?" },
    ] as OpenAI.Responses.ResponseInputItem[];
    const refused = await refusal(client.responses.create({ model: "gemini-test", input, store: false }));
    assert.equal(refused.status, 400);
    assert.equal(refused.code, "foreign_compaction");
    assert.match(refused.message, /not sealed by this gateway/);
    assert.match(refused.message, /OpenAI or Azure OpenAI channel/);

    const relayed = await client.responses.create({ model: "gpt-test", input, store: false });
    assert.equal(relayed.status, "completed");
    assert.ok(lastBody.openai().raw.includes(OPENAI_COMPACTION_BLOB));
  });
});

describe("compaction_trigger on /v1/responses", () => {
  const triggered = [...CONVERSATION, { type: "compaction_trigger" }] as OpenAI.Responses.ResponseInputItem[];

  test("translated: the answer's one output item is the sealed compaction, whole and streamed, and it continues the conversation", async () => {
    const whole = await client.responses.create({ model: "claude-test", input: triggered, store: false });
    assert.equal(whole.status, "completed");
    assert.deepEqual(
      whole.output.map((item) => item.type),
      ["compaction"],
    );
    assert.match((whole.output[0] as { encrypted_content: string }).encrypted_content, /^gwcompact1\./);
    assert.ok(JSON.stringify(lastBody.anthropic().body).includes(COMPACTION_ASK));

    const stream = await client.responses.create({ model: "claude-test", input: triggered, store: false, stream: true });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    let added: Record<string, unknown> | undefined;
    let compacting: { item_id: string } | undefined;
    for await (const event of stream) {
      if (types.at(-1) !== event.type) types.push(event.type);
      if (event.type === "response.output_item.added") added = event.item as unknown as Record<string, unknown>;
      // The project's openai 6 types predate this event (and its stream helper refuses it).
      if ((event.type as string) === "response.compaction.compacting") compacting = event as unknown as { item_id: string };
      if (event.type === "response.completed") completed = event.response;
    }
    assert.deepEqual(types, [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.compaction.compacting",
      "response.output_item.done",
      "response.completed",
    ]);
    // Opened without its content, as OpenAI streams it; the sealed content comes whole at the end.
    assert.equal(added?.type, "compaction");
    assert.equal(added?.encrypted_content, undefined);
    assert.equal(compacting?.item_id, added?.id);
    const item = completed!.output[0] as { type: string; id: string; encrypted_content: string };
    assert.equal(item.type, "compaction");
    assert.equal(item.id, added?.id);
    assert.match(item.encrypted_content, /^gwcompact1\./);
    const helper = await client.responses.stream({ model: "claude-test", input: triggered, store: false }).finalResponse();
    assert.match((helper.output[0] as { encrypted_content: string }).encrypted_content, /^gwcompact1\./);

    await client.responses.create({ model: "claude-test", input: [item as OpenAI.Responses.ResponseInputItem, { role: "user", content: "What next?" }], store: false });
    const sent = JSON.stringify(lastBody.anthropic().body);
    assert.ok(sent.includes(SUMMARY_MARK) && !sent.includes("DROPPED-TURN-7f3a"), sent);
  });

  for (const { kind, model, upstream } of UPSTREAMS.filter((entry) => entry.model !== "claude-test")) {
    test(`${kind}: a trigger is compacted by the gateway too`, async () => {
      const whole = await client.responses.create({ model, input: triggered, store: false });
      assert.equal(whole.output.length, 1);
      assert.match((whole.output[0] as { encrypted_content: string }).encrypted_content, /^gwcompact1\./);
      assert.ok(JSON.stringify(lastBody[upstream]().body).includes(COMPACTION_ASK));
      noRejections();
    });
  }

  test("stored: a continuation of a triggered compaction carries the summary and the user messages, not the dropped turns", async () => {
    const compacted = await client.responses.create({ model: "gemini-test", input: triggered });
    const next = await client.responses.create({ model: "gemini-test", input: "What next?", previous_response_id: compacted.id });
    assert.equal(next.status, "completed");
    const sent = JSON.stringify(lastBody.gemini().body);
    assert.ok(sent.includes(SUMMARY_MARK) && sent.includes("Add a retry to src/fetch.ts") && sent.includes("What next?"), sent);
    assert.ok(!sent.includes("DROPPED-TURN-7f3a") && !sent.includes("gwcompact1."), sent);
  });

  test("native: relayed with the trigger last (a gateway item before it opened), OpenAI's compaction item comes back as it sent it", async () => {
    const earlier = await client.responses.compact({ model: "gemini-test", input: CONVERSATION });
    const input = [compactionOf(earlier.output), ...triggered] as OpenAI.Responses.ResponseInputItem[];
    const whole = await client.responses.create({ model: "gpt-test", input, store: false });
    assert.deepEqual(whole.output, [{ type: "compaction", id: "cmp_native2", encrypted_content: OPENAI_COMPACTION_BLOB }]);
    const sent = lastBody.openai().body.input as { type?: string; role?: string; content?: unknown }[];
    assert.equal(sent.at(-1)?.type, "compaction_trigger");
    assert.equal(sent[0]?.role, "developer");
    assert.match(String(sent[0]?.content), new RegExp(SUMMARY_MARK));
    assert.ok(!lastBody.openai().raw.includes("gwcompact1."));
    const stream = await client.responses.create({ model: "gpt-test", input: triggered, store: false, stream: true });
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) if (event.type === "response.completed") completed = event.response;
    assert.equal((completed!.output[0] as { encrypted_content: string }).encrypted_content, OPENAI_COMPACTION_BLOB);
  });
});

describe("POST /v1/responses/input_tokens", () => {
  test("answers on every upstream: the upstream's own count where it has one, the gateway's estimate elsewhere", async () => {
    for (const model of ["gpt-test", "chat-only-test", "claude-test", "gemini-test", "bedrock-claude", "bedrock-nova"]) {
      const { data, response } = await client.responses.inputTokens.count({ model, input: CONVERSATION, instructions: "You are a coding agent." }).withResponse();
      assert.equal(data.object, "response.input_tokens", model);
      assert.ok(Number.isInteger(data.input_tokens) && data.input_tokens > 10, `${model}: ${data.input_tokens}`);
      if (model === "claude-test") assert.equal(data.input_tokens, 4242, "Anthropic's count_tokens answers");
      if (model === "gpt-test") assert.equal(data.input_tokens, OPENAI_INPUT_TOKENS, "OpenAI's /responses/input_tokens answers");
      if (model === "chat-only-test") assert.notEqual(data.input_tokens, OPENAI_INPUT_TOKENS, "a server without it: the gateway's estimate");
      const row = await logRow(response.headers.get("x-request-id"));
      assert.equal(row.endpoint, "/v1/responses/input_tokens");
    }
    // A compacted conversation counts its summary, not the seal.
    const compacted = await client.responses.compact({ model: "claude-test", input: CONVERSATION });
    const counted = await client.responses.inputTokens.count({ model: "gpt-test", input: compacted.output as OpenAI.Responses.ResponseInputItem[] });
    assert.ok(counted.input_tokens > 10);
  });
});

describe("Codex's compaction flow, replayed from its recorded turn", () => {
  for (const model of ["gpt-test", "claude-test"]) {
    test(`${model}: Codex compacts its session, then carries on from the compacted history`, async () => {
      const { request, headers } = CODEX_TURN;
      // What Codex sends to /responses/compact: the turn's model, instructions, input, tools and settings.
      const compactBody = {
        model,
        instructions: request.instructions,
        input: request.input,
        tools: request.tools,
        parallel_tool_calls: request.parallel_tool_calls,
        reasoning: request.reasoning,
        text: request.text,
      };
      const compacted = await client.responses.compact(compactBody as OpenAI.Responses.ResponseCompactParams, { headers });
      const item = compactionOf(compacted.output);
      assert.equal(item.type, "compaction");
      assert.equal(compacted.output.filter((entry) => entry.type === "compaction").length, 1, "exactly one compaction output item");
      const next = await client.responses.create(
        { ...request, model, input: [...compacted.output, { role: "user", content: "Carry on with the plan." }], stream: true },
        { headers },
      );
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of next as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) if (event.type === "response.completed") completed = event.response;
      assert.equal(completed?.status, "completed");
      const toolOutput = request.input.find((entry: { type?: string }) => entry.type === "function_call_output").output as string;
      const sent = model === "gpt-test" ? lastBody.openai().raw : JSON.stringify(lastBody.anthropic().body);
      assert.ok(!sent.includes(toolOutput.slice(0, 40)), "the compacted tool outputs are not sent again");
      if (model === "gpt-test") assert.ok(sent.includes(OPENAI_COMPACTION_BLOB));
      else assert.ok(sent.includes(SUMMARY_MARK));
      noRejections();
    });
  }
});
