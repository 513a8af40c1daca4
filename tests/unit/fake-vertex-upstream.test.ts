import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { GoogleGenAI } from "@google/genai";
import { GoogleAuth } from "google-auth-library";
import { createServiceAccount, startFakeVertexUpstream, tokenUriTransporter, VERTEX_LOCATION, VERTEX_PROJECT, type FakeVertex } from "../helpers/fake-vertex-upstream";

// The loopback Vertex proven right by Google's and Anthropic's own Vertex SDKs: what they
// send, it takes; what the real service refuses (a grant signed by another key, a call
// without a token, another project, a content without a role, Claude's model in the
// body), it refuses the same way.

let fake: FakeVertex;
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";

before(async () => {
  fake = await startFakeVertexUpstream();
});
after(async () => {
  await fake.close();
});

const authOptions = () => ({
  credentials: JSON.parse(fake.serviceAccount.json),
  scopes: [CLOUD_PLATFORM],
  clientOptions: { transporter: tokenUriTransporter(fake.tokenUri) },
});

describe("the Vertex fake, driven by @google/genai (vertexai: true)", () => {
  const client = () =>
    new GoogleGenAI({
      vertexai: true,
      project: VERTEX_PROJECT,
      location: VERTEX_LOCATION,
      googleAuthOptions: authOptions() as never,
      httpOptions: { baseUrl: fake.origin, apiVersion: "v1" },
    });

  test("generateContent, a stream, countTokens and embeddings, all on one token", async () => {
    const before = fake.tokenRequests;
    const ai = client();
    const response = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "Hello Vertex" });
    assert.equal(response.text, "Echo: Hello Vertex");
    assert.equal(response.usageMetadata?.promptTokenCount, 19);
    let streamed = "";
    for await (const chunk of await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: "one two three" })) streamed += chunk.text ?? "";
    assert.equal(streamed, "Echo: one two three");
    const count = await ai.models.countTokens({ model: "gemini-2.5-flash", contents: "count me" });
    assert.equal(count.totalTokens, 555);
    const embedded = await ai.models.embedContent({ model: "text-embedding-005", contents: ["alpha", "beta"], config: { outputDimensionality: 3 } });
    assert.deepEqual(
      embedded.embeddings?.map((embedding) => embedding.values),
      [
        [5, 0.25, 0.5],
        [4, 0.25, 0.5],
      ],
    );
    assert.deepEqual(fake.rejected, []);
    assert.equal(fake.tokenRequests - before, 1, "the SDK bought one token and reused it");
    const sent = fake.received.filter((request) => request.path.includes("/publishers/google/"));
    assert.ok(sent.every((request) => /^Bearer ya29\.fake-/.test(String(request.headers.authorization))));
  });

  test("gemini-embedding-001 takes one instance per request, as on Vertex", async () => {
    await assert.rejects(client().models.embedContent({ model: "gemini-embedding-001", contents: ["a", "b"] }), /batchSize must be 1/);
    fake.rejected.length = 0;
  });
});

describe("the Vertex fake, driven by @anthropic-ai/vertex-sdk", () => {
  const client = () =>
    new AnthropicVertex({
      region: VERTEX_LOCATION,
      projectId: VERTEX_PROJECT,
      baseURL: `${fake.origin}/v1`,
      googleAuth: new GoogleAuth(authOptions()) as never,
      maxRetries: 0,
    });

  test("a message, a stream and a token count through rawPredict, streamRawPredict and count-tokens", async () => {
    const anthropic = client();
    const message = await anthropic.messages.create({ model: "claude-sonnet-4@20250514", max_tokens: 100, messages: [{ role: "user", content: "Hi Claude" }] });
    assert.deepEqual(message.content, [{ type: "text", text: "Echo: Hi Claude" }]);
    const stream = anthropic.messages.stream({ model: "claude-sonnet-4@20250514", max_tokens: 100, messages: [{ role: "user", content: "streamed words" }] });
    const final = await stream.finalMessage();
    assert.equal((final.content[0] as { text: string }).text, "Echo: streamed words");
    assert.equal(final.usage.cache_read_input_tokens, 7);
    const count = await anthropic.messages.countTokens({ model: "claude-sonnet-4@20250514", messages: [{ role: "user", content: "count" }] });
    assert.equal(count.input_tokens, 3131);
    assert.deepEqual(fake.rejected, []);
    const paths = fake.received.filter((request) => request.path.includes("/publishers/anthropic/")).map((request) => request.path);
    assert.deepEqual(paths.slice(-3), [
      `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict`,
      `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers/anthropic/models/claude-sonnet-4@20250514:streamRawPredict`,
      `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_LOCATION}/publishers/anthropic/models/count-tokens:rawPredict`,
    ]);
  });

  test("a beta Vertex does not serve is refused as Vertex refuses it", async () => {
    await assert.rejects(
      client().beta.messages.create({ model: "claude-sonnet-4@20250514", max_tokens: 10, messages: [{ role: "user", content: "x" }], betas: ["structured-outputs-2025-11-13"] }),
      /Unexpected value\(s\) `structured-outputs-2025-11-13` for the `anthropic-beta` header/,
    );
    fake.rejected.length = 0;
  });
});

describe("what the fake refuses", () => {
  const path = (publisher: string, model: string, method: string, project = VERTEX_PROJECT) =>
    `${fake.origin}/v1/projects/${project}/locations/${VERTEX_LOCATION}/publishers/${publisher}/models/${model}:${method}`;
  const post = (url: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body: JSON.stringify(body) });
  const token = async () => (await new GoogleAuth(authOptions()).getAccessToken())!;

  test("a grant signed by another key, and an assertion for another audience", async () => {
    const impostor = JSON.parse(createServiceAccount(fake.tokenUri).json);
    impostor.client_email = fake.serviceAccount.clientEmail;
    await assert.rejects(new GoogleAuth({ ...authOptions(), credentials: impostor }).getAccessToken(), /invalid_grant: Invalid JWT Signature/);
    const wrongAudience = new GoogleAuth({ ...authOptions(), clientOptions: { ...authOptions().clientOptions, additionalClaims: { aud: "https://elsewhere.example/token" } } });
    await assert.rejects(wrongAudience.getAccessToken(), /aud must be the token endpoint/);
    fake.rejected.length = 0;
  });

  test("calls without a token, in another project, with a content without a role, with Claude's model or no version in the body", async () => {
    const bearer = await token();
    const noToken = await post(path("google", "gemini-2.5-flash", "generateContent"), { contents: [{ role: "user", parts: [{ text: "x" }] }] });
    assert.equal(noToken.status, 401);
    assert.equal((await noToken.json()).error.status, "UNAUTHENTICATED");
    const otherProject = await post(
      path("google", "gemini-2.5-flash", "generateContent", "someone-elses-project"),
      { contents: [{ role: "user", parts: [{ text: "x" }] }] },
      bearer,
    );
    assert.equal(otherProject.status, 403);
    const noRole = await post(path("google", "gemini-2.5-flash", "generateContent"), { contents: [{ parts: [{ text: "x" }] }] }, bearer);
    assert.equal(noRole.status, 400);
    assert.match((await noRole.json()).error.message, /valid role: user, model/);
    const claude = { max_tokens: 10, messages: [{ role: "user", content: "x" }] };
    const withModel = await post(
      path("anthropic", "claude-sonnet-4@20250514", "rawPredict"),
      { ...claude, model: "claude-sonnet-4", anthropic_version: "vertex-2023-10-16" },
      bearer,
    );
    assert.equal(withModel.status, 400);
    assert.match((await withModel.json()).error.message, /model: Extra inputs/);
    const noVersion = await post(path("anthropic", "claude-sonnet-4@20250514", "rawPredict"), claude, bearer);
    assert.match((await noVersion.json()).error.message, /anthropic_version: Field required/);
    const throttled = await post(path("google", "gemini-throttled", "generateContent"), { contents: [{ role: "user", parts: [{ text: "x" }] }] }, bearer);
    assert.equal(throttled.status, 429);
    assert.equal((await throttled.json()).error.status, "RESOURCE_EXHAUSTED");
    fake.rejected.length = 0;
  });
});
