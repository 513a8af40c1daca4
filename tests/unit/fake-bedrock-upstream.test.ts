import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AnthropicBedrock } from "@anthropic-ai/bedrock-sdk";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  CountTokensCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
} from "@aws-sdk/client-bedrock-runtime";
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import {
  BEDROCK_API_KEY,
  BEDROCK_CREDENTIALS,
  BEDROCK_REGION,
  BEDROCK_SESSION_CREDENTIALS,
  COUNTED_TOKENS,
  fixtureEvents,
  startFakeBedrockUpstream,
  type FakeBedrock,
} from "../helpers/fake-bedrock-upstream";

// The Bedrock fake is only worth its tests if AWS's own clients agree with it: the AWS SDK
// (over HTTP/2, as it talks by default) and Anthropic's Bedrock SDK get their answers from
// it, signed with SigV4 or a Bedrock API key; a signature for another key, region or
// service, or a body changed after signing, is refused as AWS refuses it.

const CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const NOVA = "us.amazon.nova-pro-v1:0";
let fake: FakeBedrock;

before(async () => {
  fake = await startFakeBedrockUpstream();
});

after(async () => {
  await fake?.close();
});

const awsClient = (options: { region?: string; credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } } = {}) =>
  new BedrockRuntimeClient({ region: options.region ?? BEDROCK_REGION, endpoint: fake.origin, credentials: options.credentials ?? BEDROCK_CREDENTIALS, maxAttempts: 1 });

const claudeBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 64, messages: [{ role: "user", content: "hello bedrock" }], ...extra });

class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super("sha256", secret);
  }
}

/** A request signed by smithy's signer, sent with fetch (HTTP/1.1), optionally tampered with after signing. */
async function signedFetch(path: string, body: string, options: { region?: string; service?: string; tamper?: (headers: Record<string, string>) => string } = {}) {
  const url = new URL(`${fake.origin}${path}`);
  const signer = new SignatureV4({ service: options.service ?? "bedrock", region: options.region ?? BEDROCK_REGION, credentials: BEDROCK_CREDENTIALS, sha256: Sha256 });
  const signed = await signer.sign({
    method: "POST",
    protocol: "http:",
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, "content-type": "application/json" },
    body,
  });
  const headers = { ...(signed.headers as Record<string, string>) };
  const sent = options.tamper ? options.tamper(headers) : body;
  delete headers.host;
  const response = await fetch(url, { method: "POST", headers, body: sent });
  return { status: response.status, type: response.headers.get("x-amzn-errortype"), body: (await response.json()) as { message?: string } };
}

describe("the Bedrock fake, driven by AWS's SDK", () => {
  test("InvokeModel and InvokeModelWithResponseStream for Claude: signed requests accepted, the answer and the event stream read by the SDK", async () => {
    const client = awsClient();
    const answer = await client.send(new InvokeModelCommand({ modelId: CLAUDE, body: claudeBody(), contentType: "application/json", accept: "application/json" }));
    const message = JSON.parse(Buffer.from(answer.body).toString("utf8"));
    assert.equal(message.content[0].text, "Echo: hello bedrock");
    assert.equal(fake.received.at(-1)!.path, "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", "the SDK escapes the id's colon");
    assert.equal(fake.received.at(-1)!.auth, "sigv4");

    const streamed = await client.send(new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, body: claudeBody(), contentType: "application/json" }));
    const events: any[] = [];
    for await (const part of streamed.body!) if (part.chunk?.bytes) events.push(JSON.parse(Buffer.from(part.chunk.bytes).toString("utf8")));
    assert.equal(events[0].type, "message_start");
    assert.equal(events.at(-1).type, "message_stop");
    assert.equal(
      events
        .filter((event) => event.type === "content_block_delta")
        .map((event) => event.delta.text)
        .join(""),
      "Echo: hello bedrock",
    );
    client.destroy();
  });

  test("Converse and ConverseStream, with session credentials and a tool round trip", async () => {
    const client = awsClient({ credentials: BEDROCK_SESSION_CREDENTIALS });
    const toolConfig = {
      tools: [{ toolSpec: { name: "get_weather", description: "Weather", inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } } } }],
    };
    const first = await client.send(
      new ConverseCommand({
        modelId: NOVA,
        system: [{ text: "Be brief." }],
        messages: [{ role: "user", content: [{ text: "Weather?" }] }],
        toolConfig,
        inferenceConfig: { maxTokens: 50 },
      }),
    );
    assert.equal(first.stopReason, "tool_use");
    const call = first.output!.message!.content!.find((block) => block.toolUse)!.toolUse!;
    assert.deepEqual(call.input, { city: "Paris" });
    assert.equal(fake.received.at(-1)!.headers["x-amz-security-token"], BEDROCK_SESSION_CREDENTIALS.sessionToken);

    const stream = await client.send(
      new ConverseStreamCommand({
        modelId: NOVA,
        messages: [
          { role: "user", content: [{ text: "Weather?" }] },
          first.output!.message!,
          { role: "user", content: [{ toolResult: { toolUseId: call.toolUseId!, content: [{ text: "21 degrees" }] } }] },
        ],
        toolConfig,
      }),
    );
    let text = "";
    let usage: unknown;
    let stop: string | undefined;
    for await (const event of stream.stream!) {
      text += event.contentBlockDelta?.delta?.text ?? "";
      if (event.messageStop) stop = event.messageStop.stopReason;
      if (event.metadata) usage = event.metadata.usage;
    }
    assert.equal(text, "The tool said: 21 degrees");
    assert.equal(stop, "end_turn");
    assert.deepEqual(usage, { inputTokens: 17, cacheReadInputTokens: 3, cacheWriteInputTokens: 0, outputTokens: 5, totalTokens: 25 });
    client.destroy();
  });

  test("CountTokens takes the InvokeModel body as AWS's SDK sends it (base64) and counts Claude only", async () => {
    const client = awsClient();
    const counted = await client.send(new CountTokensCommand({ modelId: CLAUDE, input: { invokeModel: { body: Buffer.from(claudeBody()) } } }));
    assert.equal(counted.inputTokens, COUNTED_TOKENS);
    assert.equal(fake.received.at(-1)!.path, "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens");
    await assert.rejects(client.send(new CountTokensCommand({ modelId: CLAUDE, input: { invokeModel: { body: Buffer.from(claudeBody({ model: CLAUDE })) } } })), {
      name: "ValidationException",
    });
    fake.rejected.pop();
    client.destroy();
  });

  test("exceptions inside a stream reach the SDK as AWS's exceptions", async () => {
    const client = awsClient();
    const stream = await client.send(new ConverseStreamCommand({ modelId: "amazon.nova-midstream-v1:0", messages: [{ role: "user", content: [{ text: "Hi there you" }] }] }));
    await assert.rejects(
      async () => {
        for await (const _event of stream.stream!);
      },
      (error: Error) => error.name === "ThrottlingException",
    );
    client.destroy();
  });

  test("refusals as AWS's: another region, an unknown key, throttling, a Converse call without a user turn first", async () => {
    const refusals = fake.rejected.length;
    const wrongRegion = awsClient({ region: "us-west-2" });
    await assert.rejects(wrongRegion.send(new InvokeModelCommand({ modelId: CLAUDE, body: claudeBody() })), (error: Error & { $metadata?: { httpStatusCode?: number } }) => {
      assert.equal(error.name, "InvalidSignatureException");
      assert.equal(error.$metadata?.httpStatusCode, 403);
      return true;
    });
    wrongRegion.destroy();
    const unknown = awsClient({ credentials: { accessKeyId: "AKIANOTKNOWN000000000", secretAccessKey: "x".repeat(40) } });
    await assert.rejects(unknown.send(new ConverseCommand({ modelId: NOVA, messages: [{ role: "user", content: [{ text: "hi" }] }] })), { name: "UnrecognizedClientException" });
    unknown.destroy();
    const client = awsClient();
    await assert.rejects(client.send(new ConverseCommand({ modelId: "amazon.nova-throttled-v1:0", messages: [{ role: "user", content: [{ text: "hi" }] }] })), {
      name: "ThrottlingException",
    });
    await assert.rejects(client.send(new ConverseCommand({ modelId: NOVA, messages: [{ role: "assistant", content: [{ text: "hi" }] }] })), { name: "ValidationException" });
    client.destroy();
    assert.equal(fake.rejected.length, refusals + 3, "two signatures and one body refused");
  });
});

describe("the Bedrock fake's SigV4 check, against requests signed by smithy's signer", () => {
  const path = `/model/${encodeURIComponent(CLAUDE)}/invoke`;

  test("a good signature passes; the path is canonicalised encoded once more, as AWS does", async () => {
    const answer = await signedFetch(path, claudeBody());
    assert.equal(answer.status, 200, answer.body.message);
    // The colon left unescaped in the path is another path, signed as such, and also valid.
    assert.equal((await signedFetch(`/model/${CLAUDE}/invoke`, claudeBody())).status, 200);
  });

  test("a body changed after signing, another service or region, a header changed: 403", async () => {
    const tampered = await signedFetch(path, claudeBody(), { tamper: () => claudeBody({ max_tokens: 65 }) });
    assert.deepEqual([tampered.status, tampered.type?.split(":")[0]], [403, "InvalidSignatureException"]);
    assert.match(tampered.body.message!, /signature we calculated does not match/);
    assert.equal((await signedFetch(path, claudeBody(), { service: "s3" })).status, 403);
    assert.equal((await signedFetch(path, claudeBody(), { region: "us-east-1" })).status, 403);
    const header = await signedFetch(path, claudeBody(), { tamper: (headers) => ((headers["content-type"] = "text/plain"), claudeBody()) });
    assert.equal(header.status, 403);
  });

  test("InvokeModel refuses a body with `model` or `stream`, or without `anthropic_version`", async () => {
    const withModel = await signedFetch(path, claudeBody({ model: CLAUDE }));
    assert.deepEqual([withModel.status, withModel.type?.split(":")[0]], [400, "ValidationException"]);
    assert.match(withModel.body.message!, /extraneous key \[model\]/);
    assert.match((await signedFetch(path, claudeBody({ stream: true }))).body.message!, /extraneous key \[stream\]/);
    const { anthropic_version: _version, ...rest } = JSON.parse(claudeBody());
    assert.match((await signedFetch(path, JSON.stringify(rest))).body.message!, /required key \[anthropic_version\]/);
  });
});

describe("the Bedrock fake, driven by Anthropic's Bedrock SDK", () => {
  const anthropic = (auth: "sigv4" | "api-key") =>
    auth === "sigv4"
      ? new AnthropicBedrock({
          awsRegion: BEDROCK_REGION,
          awsAccessKey: BEDROCK_CREDENTIALS.accessKeyId,
          awsSecretKey: BEDROCK_CREDENTIALS.secretAccessKey,
          baseURL: fake.origin,
          maxRetries: 0,
        })
      : new AnthropicBedrock({ awsRegion: BEDROCK_REGION, apiKey: BEDROCK_API_KEY, baseURL: fake.origin, maxRetries: 0 });

  for (const auth of ["sigv4", "api-key"] as const) {
    test(`messages.create and messages.stream (${auth}), betas in the body`, async () => {
      const client = anthropic(auth);
      const message = await client.messages.create(
        { model: CLAUDE, max_tokens: 64, messages: [{ role: "user", content: "hello sdk" }] },
        { headers: { "anthropic-beta": "context-1m-2025-08-07" } },
      );
      assert.equal((message.content[0] as { text: string }).text, "Echo: hello sdk");
      assert.equal(fake.received.at(-1)!.auth, auth);
      assert.deepEqual(fake.received.at(-1)!.body.anthropic_beta, ["context-1m-2025-08-07"]);
      const streamed = await client.messages.stream({ model: CLAUDE, max_tokens: 64, messages: [{ role: "user", content: "hello stream" }] }).finalMessage();
      assert.equal((streamed.content[0] as { text: string }).text, "Echo: hello stream");
      assert.equal(streamed.usage.output_tokens, 3);
    });
  }

  test("the recorded Anthropic stream comes through the SDK event for event (the SDK passes no pings on)", async () => {
    const events: unknown[] = [];
    const stream = await anthropic("sigv4").messages.create({
      model: "anthropic.claude-fixture-v1:0",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: "weather" }],
    });
    for await (const event of stream) events.push(event);
    assert.deepEqual(
      events,
      fixtureEvents()
        .map((data) => JSON.parse(data))
        .filter((event) => event.type !== "ping"),
    );
  });

  test("a wrong API key is refused", async () => {
    const client = new AnthropicBedrock({ awsRegion: BEDROCK_REGION, apiKey: "ABSKwrongkey", baseURL: fake.origin, maxRetries: 0 });
    await assert.rejects(client.messages.create({ model: CLAUDE, max_tokens: 8, messages: [{ role: "user", content: "hi" }] }), { status: 403 });
  });
});
