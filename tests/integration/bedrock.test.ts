import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI, type Content } from "@google/genai";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import {
  BEDROCK_API_KEY,
  BEDROCK_CREDENTIALS,
  BEDROCK_REGION,
  BEDROCK_SESSION_CREDENTIALS,
  COUNTED_TOKENS,
  startFakeBedrockUpstream,
  type FakeBedrock,
} from "../helpers/fake-bedrock-upstream";
import { toGeminiSchema } from "../helpers/sdk-clients";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Bedrock channels through the real server, against the strict fake (which checks every
// SigV4 signature): each client format, streamed and not, with a tool round trip, to a
// Claude model (InvokeModel) and to another model (Converse); Claude Code's own request;
// throttling failover; a refused account; usage; and no secret anywhere.

const FIXTURES = path.join(import.meta.dirname, "..", "fixtures");
const claudeCode = JSON.parse(fs.readFileSync(path.join(FIXTURES, "coding-agents", "claude-code-turn.json"), "utf8")) as {
  headers: Record<string, string>;
  request: Record<string, any>;
};

let fake: FakeBedrock;
let gateway: Gateway;
let key: string;
const channels: Record<string, string> = {};

/** Public model -> what the channel maps it to. */
const MODELS = {
  claude: "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
  nova: "us.amazon.nova-pro-v1:0",
  "claude-fixture": "anthropic.claude-fixture-v1:0",
  "claude-midstream": "anthropic.claude-midstream-v1:0",
  "claude-arn": "arn:aws:bedrock:eu-central-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
};

async function addChannel(name: string, fields: Record<string, unknown>): Promise<string> {
  const created = await gateway.admin("POST", "/api/admin/channels", { name, type: "bedrock", baseUrl: fake.baseUrl, settings: { region: BEDROCK_REGION }, ...fields });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  channels[name] = created.body.id;
  return created.body.id;
}

before(async () => {
  fake = await startFakeBedrockUpstream();
  gateway = await startGateway();
  for (const secret of [BEDROCK_CREDENTIALS.secretAccessKey, BEDROCK_SESSION_CREDENTIALS.secretAccessKey, BEDROCK_SESSION_CREDENTIALS.sessionToken, BEDROCK_API_KEY])
    gateway.secrets.add(secret);
  await addChannel("bedrock", { apiKey: JSON.stringify(BEDROCK_CREDENTIALS), models: Object.keys(MODELS), modelMap: MODELS, priority: 5 });
  await addChannel("bedrock-session", {
    apiKey: JSON.stringify(BEDROCK_SESSION_CREDENTIALS),
    models: ["nova-session"],
    modelMap: { "nova-session": "amazon.nova-lite-v1:0" },
  });
  await addChannel("bedrock-api-key", { apiKey: BEDROCK_API_KEY, models: ["claude-key"], modelMap: { "claude-key": "anthropic.claude-haiku-4-5-v1:0" } });
  // Failover: the first answers ThrottlingException, the second serves.
  await addChannel("bedrock-throttled", {
    apiKey: JSON.stringify(BEDROCK_CREDENTIALS),
    models: ["claude-busy"],
    modelMap: { "claude-busy": "anthropic.claude-throttled-v1:0" },
    priority: 10,
  });
  await addChannel("bedrock-spare", {
    apiKey: JSON.stringify(BEDROCK_CREDENTIALS),
    models: ["claude-busy", "claude-surge", "nova-surge"],
    modelMap: { "claude-busy": "anthropic.claude-spare-v1:0", "claude-surge": "anthropic.claude-spare-v1:0", "nova-surge": "amazon.nova-spare-v1:0" },
  });
  // Throttled inside the stream, before its first event.
  await addChannel("bedrock-surge", {
    apiKey: JSON.stringify(BEDROCK_CREDENTIALS),
    models: ["claude-surge", "nova-surge"],
    modelMap: { "claude-surge": "anthropic.claude-surge-v1:0", "nova-surge": "amazon.nova-surge-v1:0" },
    priority: 10,
  });
  await addChannel("bedrock-denied", { apiKey: JSON.stringify(BEDROCK_CREDENTIALS), models: ["claude-denied"], modelMap: { "claude-denied": "anthropic.claude-denied-v1:0" } });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "bedrock" })).body.key;
  // Saving a channel with a base URL sends one unsigned loop probe, which Bedrock (and the fake) refuses.
  assert.ok(fake.rejected.every((reason) => reason.startsWith("IncompleteSignatureException")));
  fake.rejected.length = 0;
});

after(async () => {
  await gateway?.stop();
  await fake?.close();
});

const WEATHER = {
  name: "get_weather",
  description: "Weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

async function logRow(requestId: string | null) {
  let row: any;
  await eventually(async () => {
    const rows = (await gateway.admin("GET", "/api/admin/logs?limit=50")).body.data as any[];
    row = rows.find((entry) => entry.id === requestId);
    assert.ok(row, `no log row for ${requestId}`);
  });
  return row;
}

const openai = () => new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
const anthropic = (headers: Record<string, string> = {}) => new Anthropic({ baseURL: gateway.url, apiKey: key, maxRetries: 0, defaultHeaders: headers });
const gemini = () => new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.url } });

/** Round trips per client: ask, get the call, send its result, get the answer. */
const ROUND_TRIPS: Record<string, (model: string, stream: boolean) => Promise<{ call: { name: string; args: unknown }; answer: string }>> = {
  async "openai chat"(model, stream) {
    const client = openai();
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
    const tools = [{ type: "function" as const, function: WEATHER }];
    const ask = async () =>
      stream
        ? await client.chat.completions.stream({ model, messages, tools, stream_options: { include_usage: true } }).finalChatCompletion()
        : await client.chat.completions.create({ model, messages, tools });
    const first = await ask();
    assert.equal(first.choices[0]!.finish_reason, "tool_calls");
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall;
    messages.push(first.choices[0]!.message, { role: "tool", tool_call_id: call.id, content: "21 degrees" });
    const second = await ask();
    return { call: { name: call.function.name, args: JSON.parse(call.function.arguments) }, answer: second.choices[0]!.message.content ?? "" };
  },
  async "anthropic messages"(model, stream) {
    const client = anthropic();
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Weather in Paris?" }];
    const params = { model, max_tokens: 256, tools: [{ name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters as Anthropic.Tool.InputSchema }] };
    const ask = async () => (stream ? await client.messages.stream({ ...params, messages }).finalMessage() : await client.messages.create({ ...params, messages }));
    const first = await ask();
    assert.equal(first.stop_reason, "tool_use");
    const call = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === "tool_use")!;
    messages.push({ role: "assistant", content: first.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "21 degrees" }] });
    const second = await ask();
    return { call: { name: call.name, args: call.input }, answer: second.content.map((block) => (block.type === "text" ? block.text : "")).join("") };
  },
  async "gemini generateContent"(model, stream) {
    const client = gemini();
    const contents: Content[] = [{ role: "user", parts: [{ text: "Weather in Paris?" }] }];
    const config = { tools: [{ functionDeclarations: [{ name: WEATHER.name, description: WEATHER.description, parameters: toGeminiSchema(WEATHER.parameters) as never }] }] };
    const ask = async () => {
      const chunks = stream ? await client.models.generateContentStream({ model, contents, config }) : [await client.models.generateContent({ model, contents, config })];
      const parts: NonNullable<Content["parts"]> = [];
      for await (const chunk of chunks) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
      return parts;
    };
    const first = await ask();
    const call = first.find((part) => part.functionCall)!.functionCall!;
    contents.push({ role: "model", parts: first }, { role: "user", parts: [{ functionResponse: { id: call.id, name: call.name, response: { result: "21 degrees" } } }] });
    const second = await ask();
    return { call: { name: call.name!, args: call.args }, answer: second.map((part) => part.text ?? "").join("") };
  },
  async responses(model, stream) {
    const client = openai();
    const tools = [{ type: "function" as const, name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.parameters, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "Weather in Paris?" }];
    const ask = async () =>
      stream ? await client.responses.stream({ model, input, tools, store: false }).finalResponse() : await client.responses.create({ model, input, tools, store: false });
    const first = await ask();
    const call = (first.output as OpenAI.Responses.ResponseOutputItem[]).find((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call")!;
    assert.ok(call, JSON.stringify(first.output));
    input.push(
      { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
      { type: "function_call_output", call_id: call.call_id, output: "21 degrees" },
    );
    const second = await ask();
    return { call: { name: call.name, args: JSON.parse(call.arguments) }, answer: second.output_text };
  },
};

describe("Bedrock channels, every client format", () => {
  for (const [client, roundTrip] of Object.entries(ROUND_TRIPS)) {
    for (const model of ["claude", "nova"]) {
      for (const stream of [false, true]) {
        test(`${client} -> ${model === "claude" ? "Claude (InvokeModel)" : "Nova (Converse)"}, ${stream ? "streamed" : "whole"}: a tool round trip`, async () => {
          const seen = fake.received.length;
          const { call, answer } = await roundTrip(model, stream);
          assert.deepEqual(call, { name: "get_weather", args: { city: "Paris" } });
          assert.match(answer, /The tool said: .*21 degrees/);
          const sent = fake.received.slice(seen);
          assert.equal(sent.length, 2);
          const operation = model === "claude" ? (stream ? "invoke-with-response-stream" : "invoke") : stream ? "converse-stream" : "converse";
          assert.deepEqual(
            sent.map((request) => request.operation),
            [operation, operation],
          );
          assert.ok(sent.every((request) => request.auth === "sigv4" && request.model === MODELS[model as keyof typeof MODELS]));
          assert.deepEqual(fake.rejected, []);
        });
      }
    }
  }
});

describe("Bedrock requests as sent", () => {
  test("Claude: the model id percent-encoded in the path, Anthropic's body without model and stream, Bedrock's version inside", async () => {
    await anthropic().messages.create({
      model: "claude",
      max_tokens: 32,
      messages: [{ role: "user", content: "hi" }],
      temperature: 0.5,
    } as Anthropic.MessageCreateParamsNonStreaming);
    const sent = fake.received.at(-1)!;
    assert.equal(sent.path, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
    assert.deepEqual(sent.body, { max_tokens: 32, messages: [{ role: "user", content: "hi" }], temperature: 0.5, anthropic_version: "bedrock-2023-05-31" });
    assert.equal(sent.headers["anthropic-version"], undefined);
    assert.match(String(sent.headers.authorization), new RegExp(`^AWS4-HMAC-SHA256 Credential=${BEDROCK_CREDENTIALS.accessKeyId}/\\d{8}/${BEDROCK_REGION}/bedrock/aws4_request`));
  });

  test("an inference profile ARN: one path segment, its colons and slash escaped, and the signature over it still AWS's", async () => {
    const answer = await openai().chat.completions.create({ model: "claude-arn", messages: [{ role: "user", content: "arn" }] });
    assert.equal(answer.choices[0]!.message.content, "Echo: arn");
    const sent = fake.received.at(-1)!;
    assert.equal(sent.path, "/model/arn%3Aaws%3Abedrock%3Aeu-central-1%3A123456789012%3Ainference-profile%2Feu.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke");
    assert.equal(sent.model, MODELS["claude-arn"]);
    assert.deepEqual(fake.rejected, []);
  });

  test("Converse: system, inference configuration and an image in Bedrock's own shapes", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    await openai().chat.completions.create({
      model: "nova",
      max_tokens: 40,
      temperature: 0.2,
      stop: ["END"],
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
          ],
        },
      ],
    });
    const sent = fake.received.at(-1)!;
    assert.equal(sent.path, "/model/us.amazon.nova-pro-v1%3A0/converse");
    assert.deepEqual(sent.body, {
      messages: [{ role: "user", content: [{ text: "What is this?" }, { image: { format: "png", source: { bytes: png } } }] }],
      system: [{ text: "Be brief." }],
      inferenceConfig: { maxTokens: 40, temperature: 0.2, stopSequences: ["END"] },
    });
  });

  test("session credentials send their token; a Bedrock API key goes as a Bearer token", async () => {
    await openai().chat.completions.create({ model: "nova-session", messages: [{ role: "user", content: "hi" }] });
    assert.equal(fake.received.at(-1)!.headers["x-amz-security-token"], BEDROCK_SESSION_CREDENTIALS.sessionToken);
    assert.match(String(fake.received.at(-1)!.headers.authorization), /SignedHeaders=[^,]*x-amz-security-token/);
    const answer = await anthropic().messages.create({ model: "claude-key", max_tokens: 32, messages: [{ role: "user", content: "hi key" }] });
    assert.equal((answer.content[0] as Anthropic.TextBlock).text, "Echo: hi key");
    assert.equal(fake.received.at(-1)!.auth, "api-key");
  });
});

describe("token counting", () => {
  test("Claude: Bedrock's CountTokens on the InvokeModel body; Converse models: the tokenizer's estimate, without a call", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "How many tokens is this?" }];
    const counted = await anthropic().messages.countTokens({ model: "claude", messages, system: "Be brief." });
    assert.equal(counted.input_tokens, COUNTED_TOKENS);
    const sent = fake.received.at(-1)!;
    assert.equal(sent.operation, "count-tokens");
    assert.deepEqual(JSON.parse(Buffer.from(sent.body.input.invokeModel.body, "base64").toString("utf8")).system, "Be brief.");
    const seen = fake.received.length;
    const estimated = await anthropic().messages.countTokens({ model: "nova", messages });
    assert.ok(estimated.input_tokens > 0 && estimated.input_tokens < 50);
    assert.equal(fake.received.length, seen);
  });
});

describe("Claude Code on a Bedrock Claude model", () => {
  test("thinking, cache_control, metadata and betas arrive as sent; the stream comes back byte for byte as Anthropic's", async () => {
    const body = JSON.stringify({ ...claudeCode.request, model: "claude-fixture" });
    const response = await fetch(`${gateway.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: { ...claudeCode.headers, "x-api-key": key, "content-type": "application/json" },
      body,
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    assert.equal(text, fs.readFileSync(path.join(FIXTURES, "anthropic", "stream-thinking-text-tool.sse"), "utf8"), "Anthropic's own event stream, byte for byte");

    const sent = fake.received.at(-1)!;
    assert.deepEqual(fake.rejected, []);
    assert.equal(sent.operation, "invoke-with-response-stream");
    const { model: _model, stream: _stream, ...rest } = claudeCode.request;
    const betas = claudeCode.headers["anthropic-beta"]!.split(",");
    // The client's bytes, but for the members Bedrock takes otherwise.
    assert.equal(sent.raw, JSON.stringify({ ...rest, anthropic_version: "bedrock-2023-05-31", anthropic_beta: betas }));
    assert.deepEqual(sent.body.thinking, claudeCode.request.thinking);
    assert.ok(sent.raw.includes('"cache_control":{"type":"ephemeral"}'));
    assert.equal(sent.headers["anthropic-beta"], undefined);

    const row = await logRow(response.headers.get("x-request-id"));
    assert.equal(row.status, 200);
    assert.equal(row.channelId, channels.bedrock);
    assert.equal(row.cachedTokens, 100, "the upstream's own cache read count");
  });

  test("an exception inside the stream reaches an Anthropic client as an error event", async () => {
    const stream = anthropic().messages.stream({ model: "claude-midstream", max_tokens: 64, messages: [{ role: "user", content: "one two three four" }] });
    await assert.rejects(stream.finalMessage(), (error: Error) => /model stopped unexpectedly/.test(error.message));
  });
});

describe("Bedrock errors and usage", () => {
  test("ThrottlingException fails over to the next channel, which serves; the throttled one cools down", async () => {
    const first = await anthropic()
      .messages.create({ model: "claude-busy", max_tokens: 32, messages: [{ role: "user", content: "busy" }] })
      .withResponse();
    assert.equal((first.data.content[0] as Anthropic.TextBlock).text, "Echo: busy");
    const row = await logRow(first.response.headers.get("x-request-id"));
    assert.deepEqual(
      row.attempts.map((attempt: any) => [attempt.channelId, attempt.status]),
      [
        [channels["bedrock-throttled"], 429],
        [channels["bedrock-spare"], 200],
      ],
    );
    const second = await anthropic()
      .messages.create({ model: "claude-busy", max_tokens: 32, messages: [{ role: "user", content: "again" }] })
      .withResponse();
    const again = await logRow(second.response.headers.get("x-request-id"));
    assert.deepEqual(
      again.attempts.map((attempt: any) => attempt.channelId),
      [channels["bedrock-spare"]],
      "the throttled channel rests",
    );
    const state = (await gateway.admin("GET", `/api/admin/channels/${channels["bedrock-throttled"]}`)).body.state;
    assert.match(JSON.stringify(state), /ThrottlingException/);
  });

  test("a throttlingException as a stream's first frame fails over too, for an Anthropic client (relay) and an OpenAI one (Converse)", async () => {
    const relayed = await anthropic()
      .messages.create({ model: "claude-surge", max_tokens: 32, stream: true, messages: [{ role: "user", content: "surge" }] })
      .withResponse();
    let text = "";
    for await (const event of relayed.data) if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
    assert.equal(text, "Echo: surge");
    const relayedRow = await logRow(relayed.response.headers.get("x-request-id"));
    assert.deepEqual(
      relayedRow.attempts.map((attempt: any) => [attempt.channelId, attempt.status]),
      [
        [channels["bedrock-surge"], 429],
        [channels["bedrock-spare"], 200],
      ],
    );

    const translated = await openai()
      .chat.completions.create({ model: "nova-surge", stream: true, messages: [{ role: "user", content: "surge two" }] })
      .withResponse();
    let reply = "";
    for await (const chunk of translated.data) reply += chunk.choices[0]?.delta.content ?? "";
    assert.equal(reply, "Echo: surge two");
    const translatedRow = await logRow(translated.response.headers.get("x-request-id"));
    assert.deepEqual(
      translatedRow.attempts.map((attempt: any) => [attempt.channelId, attempt.status]),
      [
        [channels["bedrock-surge"], 429],
        [channels["bedrock-spare"], 200],
      ],
    );
  });

  test("AccessDeniedException takes the channel out of rotation; the caller gets a 502, never the upstream's refusal as theirs", async () => {
    const failed = await openai()
      .chat.completions.create({ model: "claude-denied", messages: [{ role: "user", content: "hi" }] })
      .catch((error) => error);
    assert.equal(failed.status, 502);
    assert.equal(failed.code, "upstream_auth_failed");
    await eventually(async () => {
      const channel = (await gateway.admin("GET", `/api/admin/channels/${channels["bedrock-denied"]}`)).body;
      assert.match(String(channel.autoDisabledReason), /AccessDeniedException/);
    });
  });

  test("ValidationException is the caller's 400", async () => {
    // Converse takes png, jpeg, gif or webp images: a BMP is refused before any call.
    const failed = await openai()
      .chat.completions.create({ model: "nova", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/bmp;base64,Qk0=" } }] }] })
      .catch((error) => error);
    assert.equal(failed.status, 400);
    // Bedrock's own refusal, of a metadata member Bedrock's Claude does not take, relayed from an Anthropic client.
    const params = {
      model: "claude",
      max_tokens: 8,
      metadata: { user_id: "u1", tags: ["a"] },
      messages: [{ role: "user", content: "hi" }],
    } as Anthropic.MessageCreateParamsNonStreaming;
    const refused = await anthropic()
      .messages.create(params)
      .catch((error) => error);
    assert.equal(refused.status, 400);
    assert.match(refused.message, /ValidationException/);
  });

  test("one log row per request, with the upstream's own usage (Converse counts, cache reads included)", async () => {
    const completion = await openai()
      .chat.completions.create({ model: "nova", messages: [{ role: "user", content: "count these words" }] })
      .withResponse();
    assert.equal(completion.data.usage?.prompt_tokens, 20);
    assert.equal(completion.data.usage?.prompt_tokens_details?.cached_tokens, 3);
    const row = await logRow(completion.response.headers.get("x-request-id"));
    assert.equal(row.promptTokens, 20);
    assert.equal(row.cachedTokens, 3);
    assert.equal(row.completionTokens, 4);
    assert.equal(row.usageEstimated, false);
    assert.equal(row.upstreamModel, MODELS.nova);
  });

  test("the channel JSON names the region and never shows the key", async () => {
    const listed = await gateway.admin("GET", "/api/admin/channels");
    const text = JSON.stringify(listed.body);
    for (const secret of gateway.secrets) assert.ok(!text.includes(secret));
    const channel = (listed.body.data ?? listed.body).find((entry: any) => entry.id === channels.bedrock);
    assert.deepEqual(channel.settings, { region: BEDROCK_REGION });
    assert.equal(channel.hasApiKey, true);
    const refused = await gateway.admin("POST", "/api/admin/channels", { name: "no region", type: "bedrock", apiKey: BEDROCK_API_KEY, models: ["x"] });
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(refused.body), /settings\.region/);
  });
});
