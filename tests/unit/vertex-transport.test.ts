import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import { checkChannelDraft } from "@/lib/channels/check-channel";
import { providers } from "@/lib/providers/registry";
import { UpstreamHttp } from "@/lib/providers/upstream-http";
import type { Runtime } from "@/lib/runtime/runtime-types";
import type { OutgoingRequest } from "@/lib/providers/transport";
import { readGoogleError } from "@/lib/providers/vertex/parse-error";
import { VERTEX_BASE_URL_TEMPLATE, vertexTransport } from "@/lib/providers/vertex/transport";
import { createServiceAccount, startFakeVertexUpstream, VERTEX_LOCATION, VERTEX_PROJECT, type FakeVertex } from "../helpers/fake-vertex-upstream";
import { testChannel } from "../helpers/in-memory-core";

// Vertex's transport on its own: where each wire format's endpoint lands, the bodies as
// Vertex takes them, Google's errors, and the service account's token, bought once and
// replaced shortly before it ends.

let fake: FakeVertex;
const upstreamHttp = new UpstreamHttp({ connections: 4 });
before(async () => {
  fake = await startFakeVertexUpstream();
});
after(async () => {
  await upstreamHttp.close();
  await fake.close();
});

const channel = (fields: { baseUrl?: string; location?: string; apiKey?: string } = {}) =>
  testChannel("vertex", {
    type: "vertex",
    baseUrl: fields.baseUrl ?? fake.baseUrl,
    apiKey: fields.apiKey ?? fake.serviceAccount.json,
    settings: { project: VERTEX_PROJECT, location: fields.location ?? VERTEX_LOCATION },
  });
const outgoing = (body: string | Buffer, headers: Record<string, string> = {}): OutgoingRequest => ({ url: "", method: "POST", headers, body });

describe("where Vertex's endpoints are", () => {
  test("the regional host by default, the multi-regions' and the global one for those, a given base URL with or without /v1", () => {
    const root = `/v1/projects/${VERTEX_PROJECT}/locations`;
    const regional = vertexTransport(channel({ baseUrl: VERTEX_BASE_URL_TEMPLATE, location: "europe-west4" }));
    assert.equal(
      regional.url({ path: "/models/gemini-2.5-flash:generateContent" }),
      `https://europe-west4-aiplatform.googleapis.com${root}/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent`,
    );
    const global = vertexTransport(channel({ baseUrl: VERTEX_BASE_URL_TEMPLATE, location: "global" }));
    assert.equal(
      global.url({ path: "/models/gemini-2.5-flash:streamGenerateContent", query: "alt=sse" }),
      `https://aiplatform.googleapis.com${root}/global/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    );
    const multiRegion = vertexTransport(channel({ baseUrl: VERTEX_BASE_URL_TEMPLATE, location: "eu" }));
    assert.equal(
      multiRegion.url({ path: "/messages", model: "claude-sonnet-4@20250514" }),
      `https://aiplatform.eu.rep.googleapis.com${root}/eu/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict`,
    );
    const given = vertexTransport(channel({ baseUrl: "https://proxy.example/vertex/v1" }));
    assert.equal(
      given.url({ path: "/models/text-embedding-005:predict" }),
      `https://proxy.example/vertex/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers/google/models/text-embedding-005:predict`,
    );
  });

  test("Claude: rawPredict, streamRawPredict for a stream, and the count-tokens model", () => {
    const transport = vertexTransport(channel());
    const prefix = `${fake.baseUrl}/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers/anthropic/models`;
    assert.equal(transport.url({ path: "/messages", model: "claude-sonnet-4@20250514" }), `${prefix}/claude-sonnet-4@20250514:rawPredict`);
    assert.equal(transport.url({ path: "/messages", model: "claude-sonnet-4@20250514", stream: true }), `${prefix}/claude-sonnet-4@20250514:streamRawPredict`);
    assert.equal(transport.url({ path: "/messages/count_tokens", model: "claude-sonnet-4@20250514" }), `${prefix}/count-tokens:rawPredict`);
  });
});

describe("bodies as Vertex takes them", () => {
  test("Anthropic's: the model out (but for count-tokens), anthropic_version in, every other byte the client's, the version header dropped and betas kept", () => {
    const transport = vertexTransport(channel());
    const sent = '{"model":"claude-x",  "max_tokens":5,"messages":[{"role":"user","content":"caf\\u00e9"}],"stream":true}';
    const request = outgoing(Buffer.from(sent), { "anthropic-version": "2023-06-01", "anthropic-beta": "interleaved-thinking-2025-05-14" });
    transport.prepare!({ path: "/messages", model: "claude-x", stream: true }, request);
    assert.equal(String(request.body), '{"max_tokens":5,"messages":[{"role":"user","content":"caf\\u00e9"}],"stream":true,"anthropic_version":"vertex-2023-10-16"}');
    assert.deepEqual(request.headers, { "anthropic-beta": "interleaved-thinking-2025-05-14" });
    const count = outgoing('{"model":"claude-x","messages":[]}');
    transport.prepare!({ path: "/messages/count_tokens", model: "claude-x" }, count);
    assert.deepEqual(JSON.parse(String(count.body)), { model: "claude-x", messages: [], anthropic_version: "vertex-2023-10-16" });
  });

  test("Gemini's: a role on every content; countTokens without the generateContentRequest wrapper", () => {
    const transport = vertexTransport(channel());
    const request = outgoing(JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }], systemInstruction: { parts: [{ text: "terse" }] } }));
    transport.prepare!({ path: "/models/gemini-2.5-flash:generateContent" }, request);
    assert.deepEqual(JSON.parse(String(request.body)).contents, [{ parts: [{ text: "hi" }], role: "user" }]);
    const untouched = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
    const asSent = outgoing(untouched);
    transport.prepare!({ path: "/models/gemini-2.5-flash:generateContent" }, asSent);
    assert.equal(asSent.body, untouched);
    const count = outgoing(JSON.stringify({ generateContentRequest: { model: "models/gemini-2.5-flash", contents: [{ role: "user", parts: [{ text: "x" }] }], tools: [] } }));
    transport.prepare!({ path: "/models/gemini-2.5-flash:countTokens" }, count);
    assert.deepEqual(JSON.parse(String(count.body)), { contents: [{ role: "user", parts: [{ text: "x" }] }], tools: [] });
  });
});

describe("Google's errors", () => {
  test("429 RESOURCE_EXHAUSTED with its retry delay (a Retry-After header wins); Anthropic's own shape is left to its parser", () => {
    const body = JSON.stringify({
      error: { code: 429, message: "Quota exceeded", status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "6.5s" }] },
    });
    const error = readGoogleError(429, body, {}, [])!;
    assert.equal(error.upstreamStatus, 429);
    assert.equal(error.code, "RESOURCE_EXHAUSTED");
    assert.equal(error.retryAfterSeconds, 7);
    assert.equal(readGoogleError(429, body, { "retry-after": "30" }, [])!.retryAfterSeconds, 30);
    assert.equal(readGoogleError(400, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "x" } }), {}, []), undefined);
    const quoted = readGoogleError(401, JSON.stringify({ error: { code: 401, message: "token ya29.secret-token-value is expired", status: "UNAUTHENTICATED" } }), {}, [
      "ya29.secret-token-value",
    ])!;
    assert.doesNotMatch(quoted.message, /secret-token-value/);
  });
});

describe("the service account's access token", () => {
  test("one grant for many concurrent first calls, reused after (by the transport a reload builds too), and replaced once it is within minutes of its end", async () => {
    fake.tokenLifetimeSeconds = 302; // 2 s before the 5-minute margin
    const apiKey = fake.newServiceAccount().json;
    const transport = vertexTransport(channel({ apiKey }));
    const start = fake.tokenRequests;
    const requests = Array.from({ length: 20 }, () => outgoing("{}"));
    await Promise.all(requests.map((request) => transport.authorize(request)));
    assert.equal(fake.tokenRequests - start, 1);
    assert.equal(new Set(requests.map((request) => request.headers.authorization)).size, 1);
    assert.match(requests[0]!.headers.authorization!, /^Bearer ya29\.fake-/);
    const again = outgoing("{}");
    // The channel cache rebuilds channels, and so transports, on every reload.
    await vertexTransport(channel({ apiKey })).authorize(again);
    assert.equal(fake.tokenRequests - start, 1);
    assert.equal(again.headers.authorization, requests[0]!.headers.authorization);
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const later = outgoing("{}");
    await transport.authorize(later);
    assert.equal(fake.tokenRequests - start, 2);
    assert.notEqual(later.headers.authorization, again.headers.authorization);
    fake.tokenLifetimeSeconds = 3600;
  });

  test("a token Vertex answers 401 for is dropped: the next call buys a new one", async () => {
    const transport = vertexTransport(channel({ apiKey: fake.newServiceAccount().json }));
    const start = fake.tokenRequests;
    const first = outgoing("{}");
    await transport.authorize(first);
    const unauthenticated = JSON.stringify({ error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } });
    assert.equal(transport.readError!(401, unauthenticated, {})?.upstreamStatus, 401);
    const next = outgoing("{}");
    await transport.authorize(next);
    assert.equal(fake.tokenRequests - start, 2);
    assert.notEqual(next.headers.authorization, first.headers.authorization);
  });

  test("a key Google refuses, or no key at all, is the channel's credential failure (like an upstream 401), never quoting the key", async () => {
    const impostor = JSON.parse(createServiceAccount(fake.tokenUri).json);
    impostor.client_email = fake.serviceAccount.clientEmail;
    const refused = await Promise.resolve(vertexTransport(channel({ apiKey: JSON.stringify(impostor) })).authorize(outgoing("{}"))).catch((error: unknown) => error);
    assert.ok(isGatewayError(refused));
    assert.equal(refused.upstreamStatus, 401);
    assert.match(refused.message, /refused the service account's token request \(HTTP 400, invalid_grant: Invalid JWT Signature\.\)/);
    fake.rejected.length = 0;
    const notAKey = await Promise.resolve(vertexTransport(channel({ apiKey: "sk-not-a-service-account-key" })).authorize(outgoing("{}"))).catch((error: unknown) => error);
    assert.ok(isGatewayError(notAKey));
    assert.equal(notAKey.upstreamStatus, 401);
    assert.match(notAKey.message, /The channel's key is not JSON\. A Vertex channel takes a service-account key/);
    assert.doesNotMatch(notAKey.message, /sk-not/);
    const cutShort = JSON.parse(createServiceAccount(fake.tokenUri).json);
    cutShort.private_key = `${cutShort.private_key.slice(0, 200)}\n-----END PRIVATE KEY-----\n`;
    const start = fake.tokenRequests;
    const damaged = await Promise.resolve(vertexTransport(channel({ apiKey: JSON.stringify(cutShort) })).authorize(outgoing("{}"))).catch((error: unknown) => error);
    assert.ok(isGatewayError(damaged));
    assert.equal(damaged.upstreamStatus, 401);
    assert.match(damaged.message, /private_key is not an RSA private key/);
    assert.equal(fake.tokenRequests, start, "refused before any token request");
  });
});

describe("the check before a Vertex channel is saved", () => {
  const runtime = { upstream: upstreamHttp, providers, deploymentId: "vertex-check" } as unknown as Runtime;
  const draft = (fields: { project?: string; apiKey?: string; model: string }) =>
    testChannel("draft", {
      type: "vertex",
      baseUrl: fake.baseUrl,
      apiKey: fields.apiKey ?? fake.serviceAccount.json,
      settings: { project: fields.project ?? VERTEX_PROJECT, location: VERTEX_LOCATION },
      models: ["public"],
      modelMap: { public: fields.model },
    });

  test("passes for a Gemini and a Claude model; a project the account cannot use, or a broken key, is named", async () => {
    assert.equal((await checkChannelDraft(runtime, draft({ model: "gemini-2.5-flash" }))).ok, true);
    assert.equal((await checkChannelDraft(runtime, draft({ model: "claude-sonnet-4@20250514" }))).ok, true);
    const otherProject = await checkChannelDraft(runtime, draft({ model: "gemini-2.5-flash", project: "someone-elses-project" }));
    assert.equal(otherProject.ok, false);
    assert.match(otherProject.error!, /Permission 'aiplatform.endpoints.predict' denied/);
    const broken = await checkChannelDraft(runtime, draft({ model: "gemini-2.5-flash", apiKey: '{"type":"authorized_user"}' }));
    assert.match(broken.error!, /The channel's key is a "authorized_user" key, not a service-account key \("type": "service_account"\)/);
    assert.equal(JSON.stringify(otherProject.result?.exchanges ?? []).includes("ya29."), false, "the token is never shown");
  });
});
