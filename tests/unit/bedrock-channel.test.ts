import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { checkChannelDraft } from "@/lib/channels/check-channel";
import { fetchUpstreamModels } from "@/lib/channels/fetch-models";
import { providers } from "@/lib/providers/registry";
import { UpstreamHttp } from "@/lib/providers/upstream-http";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { BEDROCK_API_KEY, BEDROCK_CREDENTIALS, BEDROCK_REGION, BEDROCK_SESSION_CREDENTIALS, startFakeBedrockUpstream, type FakeBedrock } from "../helpers/fake-bedrock-upstream";
import { testChannel } from "../helpers/in-memory-core";

// What the console does with a Bedrock channel before saving it: the check sends one
// signed request through the real conversion path (Claude and Converse alike), a wrong
// key or region is reported without the key, and "fetch models" lists the control plane's
// foundation models and inference profiles.

let fake: FakeBedrock;
const upstreamHttp = new UpstreamHttp({ connections: 4 });
const runtime = { upstream: upstreamHttp, providers, deploymentId: "bedrock-check" } as unknown as Runtime;
const draft = (fields: { apiKey?: string; region?: string; model?: string } = {}) =>
  testChannel("draft", {
    type: "bedrock",
    baseUrl: fake.baseUrl,
    apiKey: fields.apiKey ?? JSON.stringify(BEDROCK_CREDENTIALS),
    settings: { region: fields.region ?? BEDROCK_REGION },
    models: ["model"],
    modelMap: { model: fields.model ?? "us.anthropic.claude-haiku-4-5-20251001-v1:0" },
  });

before(async () => {
  fake = await startFakeBedrockUpstream();
});
after(async () => {
  await upstreamHttp.close();
  await fake.close();
});

describe("a Bedrock channel before its save", () => {
  test("the check passes for a Claude model (InvokeModel) and a Converse model, signed or with an API key", async () => {
    for (const channel of [draft(), draft({ model: "amazon.nova-lite-v1:0" }), draft({ apiKey: BEDROCK_API_KEY })]) {
      const check = await checkChannelDraft(runtime, channel);
      assert.equal(check.ok, true, check.error);
      assert.match(check.result!.reply!, /Echo: Reply with the single word: pong/);
    }
    assert.deepEqual(fake.received.map((request) => request.operation).slice(0, 3), ["invoke", "converse", "invoke"]);
  });

  test("the recorded exchange (the console's view of the test) shows the signed request without its credentials", async () => {
    const check = await checkChannelDraft(runtime, draft({ apiKey: JSON.stringify(BEDROCK_SESSION_CREDENTIALS) }));
    assert.equal(check.ok, true, check.error);
    const exchange = check.result!.exchanges[0]!;
    assert.equal(exchange.request.url, `${fake.baseUrl}/model/us.anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke`);
    assert.equal(exchange.request.headers["x-amz-security-token"], "[redacted]");
    assert.equal(exchange.request.headers.authorization, "[redacted]");
    assert.ok(!JSON.stringify(check).includes(BEDROCK_SESSION_CREDENTIALS.sessionToken));
    assert.ok(!JSON.stringify(check).includes(BEDROCK_SESSION_CREDENTIALS.secretAccessKey));
  });

  test("a wrong secret, region or JSON key fails the check with AWS's reason and never the key", async () => {
    const wrongSecret = JSON.stringify({ ...BEDROCK_CREDENTIALS, secretAccessKey: "wrongSecretKey/0123456789abcdefghijklmnop" });
    const secret = await checkChannelDraft(runtime, draft({ apiKey: wrongSecret }));
    assert.equal(secret.ok, false);
    assert.match(secret.error!, /InvalidSignatureException/);
    assert.ok(!secret.error!.includes("wrongSecretKey"));
    const region = await checkChannelDraft(runtime, draft({ region: "ap-south-1" }));
    assert.match(region.error!, /scoped to a valid region/);
    const json = await checkChannelDraft(runtime, draft({ apiKey: '{"accessKeyId":"AKIA","secret":"hunter2-hunter2"}' }));
    assert.match(json.error!, /JSON but not AWS credentials/);
    assert.ok(!json.error!.includes("hunter2"));
  });

  test("fetch models lists the on-demand foundation models and the inference profiles", async () => {
    const listing = await fetchUpstreamModels(runtime, draft());
    assert.deepEqual(listing, { ok: true, models: ["amazon.nova-pro-v1:0", "anthropic.claude-3-haiku-20240307-v1:0", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"] });
  });

  test("the default base URL is the region's runtime endpoint; the model list is on its control plane", () => {
    const channel = { ...draft(), baseUrl: providers.bedrock.defaultBaseUrl, settings: { region: "us-west-2" } };
    const transport = providers.bedrock.transport(channel);
    assert.equal(
      transport.url({ path: "/messages", model: "anthropic.claude-x-v1:0", stream: true }),
      "https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-x-v1%3A0/invoke-with-response-stream",
    );
    assert.equal(transport.url({ path: "/converse", model: "amazon.nova-pro-v1:0" }), "https://bedrock-runtime.us-west-2.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse");
    assert.equal(transport.url({ path: "/foundation-models", query: "byOutputModality=TEXT" }), "https://bedrock.us-west-2.amazonaws.com/foundation-models?byOutputModality=TEXT");
  });
});
