import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Careless and hostile input, each answered with a clean error in the route's own format:
// no 5xx, no hang, no secret or URL quoted back.

let gateway: Gateway;
let key: string;
let fakes: {
  openai: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
  anthropic: Awaited<ReturnType<typeof startFakeAnthropicUpstream>>;
  gemini: Awaited<ReturnType<typeof startFakeGeminiUpstream>>;
};
const MAX_BODY_BYTES = 512 * 1024;

before(async () => {
  fakes = { openai: await startFakeOpenAIUpstream(), anthropic: await startFakeAnthropicUpstream(), gemini: await startFakeGeminiUpstream() };
  gateway = await startGateway({ MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
  for (const channel of [
    { type: "openai", baseUrl: fakes.openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test"] },
    { type: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test"] },
    { type: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel })).status, 201);
  }
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "hardening" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await Promise.all(Object.values(fakes ?? {}).map((fake) => fake.close()));
});

const anthropicHeaders = () => ({ "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" });
const openaiHeaders = () => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
const chat = { model: "gpt-test", messages: [{ role: "user", content: "hi" }] };

async function send(path: string, init: RequestInit = {}) {
  const response = await fetch(`${gateway.url}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Sends bytes exactly as given, for requests fetch refuses to make. */
function rawRequest(text: string): Promise<string> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    // Written, not ended: the server closes the connection after its 400, and a half-close could race that through a proxy.
    const socket = net.connect(Number(port), hostname, () => socket.write(text));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(10_000, () => reject(new Error("no answer")));
  });
}

const isOpenAIError = (json: any) => typeof json?.error?.message === "string" && "type" in json.error;
const isAnthropicError = (json: any) => json?.type === "error" && typeof json.error?.type === "string";
const isGeminiError = (json: any) => typeof json?.error?.code === "number" && typeof json.error.status === "string";

describe("the cases found on main", () => {
  test("a broken percent-encoding in an admin path is a prompt 400, and the server stays responsive", async () => {
    const admin = { authorization: `Bearer ${gateway.adminKey}` };
    const [get, remove, health] = await Promise.all([
      send("/api/admin/tokens/%E0%A4%A", { headers: admin }),
      send("/api/admin/tokens/%E0%A4%A", { method: "DELETE", headers: admin }),
      send("/api/health"),
    ]);
    assert.equal(get.status, 400);
    assert.equal(remove.status, 400);
    assert.ok(isOpenAIError(get.json));
    assert.equal(health.status, 200);
  });

  test("isPrototypeOf, constructor and __proto__ keys nested deep in /v1/messages are plain data", async () => {
    let nested: any = { isPrototypeOf: "x", constructor: { prototype: 1 } };
    for (let depth = 0; depth < 60; depth += 1) nested = { isPrototypeOf: nested, hasOwnProperty: depth, toString: "s" };
    const body = {
      model: "claude-test",
      max_tokens: 5,
      metadata: { user_id: "u" },
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      tools: [{ name: "lookup", input_schema: { type: "object", properties: { isPrototypeOf: nested, constructor: { type: "string" } } } }],
    };
    const text = JSON.stringify(body).replace('"metadata":{', '"__proto__":{"isPrototypeOf":1},"metadata":{');
    const response = await send("/v1/messages", { method: "POST", headers: anthropicHeaders(), body: text });
    assert.ok(response.status < 500, response.text);
  });

  test("a :countTokens body that is a bare JSON value is a 400 saying an object is needed", async () => {
    for (const body of ["3", '"text"', "null", "[]"]) {
      const response = await send(`/v1beta/models/gemini-test:countTokens?key=${key}`, { method: "POST", body });
      assert.equal(response.status, 400, body);
      assert.ok(isGeminiError(response.json));
      assert.match(response.json.error.message, /JSON object/);
    }
  });

  test("a Gemini path naming models/... with a broken percent-encoded query is no 5xx", async () => {
    for (const path of [
      "/v1beta/models/models/gemini-test:generateContent?x=%E0%A4%A",
      "/v1beta/models/models%2Fgemini-test:generateContent?alt=%ZZ",
      "/v1beta/models/%E0%A4%A:generateContent",
    ]) {
      const response = await send(path, { method: "POST", headers: { "x-goog-api-key": key }, body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
      assert.ok(response.status < 500 && response.status >= 200, `${path}: ${response.status}`);
      if (response.status >= 400) assert.ok(isGeminiError(response.json), response.text);
    }
  });

  test("a key in the URL is never quoted back, double slash or not", async () => {
    const secret = "sk-this-is-a-secret-never-to-echo-1234567890";
    for (const path of [`//v1beta/models/x:generateContent?key=${secret}`, `/v1beta/models/x:generateContent?key=${secret}`, `/v1/${secret}`, `/v1beta/${secret}/x`]) {
      const response = await send(path, { method: "POST", body: "{}" });
      assert.ok(response.status >= 400 && response.status < 500, `${path}: ${response.status}`);
      assert.equal(response.text.includes(secret), false, response.text);
      assert.equal([...response.headers.values()].join(" ").includes(secret), false);
    }
    // With a real key, the double-slash path is served like the single one.
    const served = await send(`//v1beta/models/gemini-test:generateContent?key=${key}`, { method: "POST", body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
    assert.equal(served.status, 200, served.text);
  });

  test("wrong methods are 405 with Allow, in the route's own format", async () => {
    const messages = await send("/v1/messages", { headers: anthropicHeaders() });
    assert.equal(messages.status, 405);
    assert.equal(messages.headers.get("allow"), "POST");
    assert.ok(isAnthropicError(messages.json), messages.text);

    const chatGet = await send("/v1/chat/completions", { headers: openaiHeaders() });
    assert.equal(chatGet.status, 405);
    assert.ok(isOpenAIError(chatGet.json));

    const gemini = await send("/v1beta/models", { method: "DELETE" });
    assert.equal(gemini.status, 405);
    assert.ok(isGeminiError(gemini.json), gemini.text);

    const admin = await send("/api/admin/tokens", { method: "PUT", headers: { authorization: `Bearer ${gateway.adminKey}` } });
    assert.equal(admin.status, 405);
    assert.equal(admin.headers.get("allow"), "GET, POST");
    assert.ok(isOpenAIError(admin.json), admin.text);
  });
});

describe("bodies", () => {
  test("past the size limit is 413; just under it is read", async () => {
    const big = JSON.stringify({ ...chat, messages: [{ role: "user", content: "x".repeat(MAX_BODY_BYTES) }] });
    const tooLarge = await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: big });
    assert.equal(tooLarge.status, 413);
    assert.ok(isOpenAIError(tooLarge.json));
    const fits = JSON.stringify({ ...chat, messages: [{ role: "user", content: "x".repeat(MAX_BODY_BYTES - 200) }] });
    assert.equal((await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: fits })).status, 200);
  });

  test("JSON nested tens of thousands of levels deep is a 400, in each format", async () => {
    const deep = `{"model":"gpt-test","messages":${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    const openai = await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: deep });
    assert.equal(openai.status, 400);
    assert.equal(openai.json.error.code, "json_too_deep");
    const anthropic = await send("/v1/messages", { method: "POST", headers: anthropicHeaders(), body: deep });
    assert.equal(anthropic.status, 400);
    assert.ok(isAnthropicError(anthropic.json));
  });

  test("a huge array is refused by its length, before validation, not by a crash", async () => {
    const body = JSON.stringify({ model: "gpt-test", messages: Array.from({ length: 40_000 }, () => 0) });
    const response = await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body });
    assert.equal(response.status, 413);
    assert.equal(response.json.error.code, "too_many_messages");
  });

  test("invalid UTF-8, UTF-16 and non-UTF-8 charsets are refused with a reason", async () => {
    const invalid = Buffer.concat([Buffer.from('{"model":"gpt-test","messages":[{"role":"user","content":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}]}')]);
    const utf8 = await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: invalid });
    assert.equal(utf8.status, 400);
    assert.match(utf8.json.error.message, /UTF-8/);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(chat), "utf16le")]);
    assert.equal((await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: utf16 })).status, 400);
    const charset = await send("/v1/chat/completions", {
      method: "POST",
      headers: { ...openaiHeaders(), "content-type": "application/json; charset=utf-16" },
      body: JSON.stringify(chat),
    });
    assert.equal(charset.status, 415);
    // A UTF-8 byte order mark is tolerated.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(chat))]);
    assert.equal((await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: bom })).status, 200);
  });

  test("gzip bodies are read; unknown or corrupt content-encodings are refused", async () => {
    const gzipped = await send("/v1/chat/completions", { method: "POST", headers: { ...openaiHeaders(), "content-encoding": "gzip" }, body: gzipSync(JSON.stringify(chat)) });
    assert.equal(gzipped.status, 200, gzipped.text);
    const zstd = await send("/v1/chat/completions", { method: "POST", headers: { ...openaiHeaders(), "content-encoding": "zstd" }, body: "x" });
    assert.equal(zstd.status, 415);
    assert.ok(isOpenAIError(zstd.json));
    const corrupt = await send("/v1/messages", { method: "POST", headers: { ...anthropicHeaders(), "content-encoding": "gzip" }, body: "not gzip at all" });
    assert.equal(corrupt.status, 400);
    assert.ok(isAnthropicError(corrupt.json));
    // A small bomb expanding past the limit is a 413, not memory.
    const bomb = gzipSync(Buffer.alloc(MAX_BODY_BYTES * 8, 0x20));
    const exploded = await send("/v1/chat/completions", { method: "POST", headers: { ...openaiHeaders(), "content-encoding": "gzip" }, body: bomb });
    assert.equal(exploded.status, 413);
  });

  test("odd content types on the API are read as JSON or refused cleanly; the admin API wants JSON", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/octet-stream"]) {
      const response = await send("/v1/chat/completions", { method: "POST", headers: { ...openaiHeaders(), "content-type": type }, body: JSON.stringify(chat) });
      assert.ok(response.status === 200 || response.status === 400 || response.status === 415, `${type}: ${response.status}`);
    }
    const plain = await send("/api/admin/tokens", {
      method: "POST",
      headers: { authorization: `Bearer ${gateway.adminKey}`, "content-type": "text/plain" },
      body: JSON.stringify({ name: "csrf" }),
    });
    assert.equal(plain.status, 415);
  });
});

describe("CR/LF and control characters", () => {
  test("in a model name: 400, never forwarded upstream or reflected into a header", async () => {
    const before = fakes.openai.received.length;
    const openai = await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: JSON.stringify({ ...chat, model: "gpt-test\r\nx-injected: 1" }) });
    assert.equal(openai.status, 400);
    assert.equal(openai.headers.get("x-injected"), null);
    const gemini = await send(`/v1beta/models/gemini-test%0D%0Ax-injected:%201:generateContent?key=${key}`, {
      method: "POST",
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
    });
    assert.equal(gemini.status, 400, gemini.text);
    assert.equal(gemini.headers.get("x-injected"), null);
    assert.equal(fakes.openai.received.length, before);
  });

  test("in a header or the request line: refused by the HTTP parser, and the server carries on", async () => {
    const injected = await rawRequest(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\rX-Evil: 1\r\nContent-Length: 2\r\n\r\n{}`);
    assert.match(injected, /^HTTP\/1\.1 400/);
    const path = await rawRequest("GET /v1/models\r\nx HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.match(path, /^HTTP\/1\.1 400/);
    assert.equal((await send("/api/health")).status, 200);
  });

  test("a request id is echoed only when it is a plain id", async () => {
    const plain = await send("/v1/models", { headers: { ...openaiHeaders(), "x-request-id": "client-42.a" } });
    assert.equal(plain.headers.get("x-request-id"), "client-42.a");
    assert.match(plain.headers.get("x-gateway-request-id") ?? "", /^req_/);
    const odd = await send("/v1/models", { headers: { ...openaiHeaders(), "x-request-id": "a b <script>" } });
    assert.match(odd.headers.get("x-request-id") ?? "", /^req_/);
  });
});

describe("secrets in upstream answers", () => {
  test("an upstream error quoting the channel's key reaches neither the client nor the log", async () => {
    const wrongKey = "sk-channel-key-that-is-wrong-0123456789";
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: "wrong key",
      type: "openai",
      baseUrl: fakes.openai.baseUrl,
      apiKey: wrongKey,
      models: ["gpt-wrong-key"],
    });
    assert.equal(channel.status, 201);
    const response = await send("/v1/chat/completions", { method: "POST", headers: openaiHeaders(), body: JSON.stringify({ ...chat, model: "gpt-wrong-key" }) });
    assert.ok(response.status >= 400);
    assert.equal(response.text.includes(wrongKey), false, response.text);
    const id = response.headers.get("x-request-id");
    const rows = (await gateway.admin("GET", "/api/admin/logs?limit=100")).body.data as any[];
    const row = rows.find((entry) => entry.id === id);
    assert.ok(row, "the request is logged");
    assert.equal(JSON.stringify(row).includes(wrongKey), false, JSON.stringify(row));
    assert.match(JSON.stringify(row.attempts), /Incorrect API key/);
    // The channel was disabled automatically: drop it so other tests route as before.
    await gateway.admin("DELETE", `/api/admin/channels/${channel.body.id}`);
  });
});

describe("CORS and upstream selection", () => {
  test("browsers get CORS on /v1 and /v1beta (any origin, never credentials)", async () => {
    const preflight = await send("/v1/chat/completions", {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
    assert.equal(preflight.headers.get("access-control-allow-headers"), "authorization, content-type");
    assert.equal(preflight.headers.get("access-control-allow-credentials"), null);
    const actual = await send("/v1/chat/completions", { method: "POST", headers: { ...openaiHeaders(), origin: "https://app.example" }, body: JSON.stringify(chat) });
    assert.equal(actual.headers.get("access-control-allow-origin"), "*");
  });

  test("no request field or header moves the upstream host, path or key", async () => {
    const trap = net.createServer((socket) => socket.destroy());
    let connections = 0;
    trap.on("connection", () => (connections += 1));
    await new Promise<void>((resolve) => trap.listen(0, "127.0.0.1", resolve));
    const trapUrl = `http://127.0.0.1:${(trap.address() as net.AddressInfo).port}/v1`;
    const before = fakes.openai.received.length;
    const response = await send("/v1/chat/completions", {
      method: "POST",
      headers: { ...openaiHeaders(), "x-base-url": trapUrl, "x-api-base": trapUrl, "x-upstream-url": trapUrl, "openai-base-url": trapUrl, "x-api-key": "sk-attacker-key-1234567" },
      body: JSON.stringify({ ...chat, api_base: trapUrl, base_url: trapUrl, api_key: "sk-attacker-key-1234567", extra_headers: { authorization: "Bearer sk-attacker" } }),
    });
    assert.equal(response.status, 200);
    const received = fakes.openai.received.at(-1)!;
    assert.equal(fakes.openai.received.length, before + 1);
    assert.equal(received.headers.authorization, `Bearer ${UPSTREAM_API_KEY}`);
    trap.close();
    assert.equal(connections, 0);
  });
});

describe("base URL mistakes", () => {
  test("a base URL without /v1 gets JSON in the caller's format saying what to set, not an HTML page", async () => {
    const { default: OpenAI } = await import("openai");
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const openai = new OpenAI({ baseURL: gateway.url, apiKey: key, maxRetries: 0 });
    const error: any = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }).catch((caught) => caught);
    assert.equal(error.status, 404);
    assert.match(error.message, /base URL to end in \/v1/);
    const anthropic = new Anthropic({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const doubled: any = await anthropic.messages.create({ model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }).catch((caught) => caught);
    assert.equal(doubled.status, 404);
    assert.equal(doubled.error?.type, "error");
    assert.match(doubled.message, new RegExp(`adds /v1 itself, so set its base URL to ${gateway.url} \\(without /v1\\)`));
    const curl = await send("/messages", { method: "POST", headers: anthropicHeaders(), body: "{}" });
    assert.ok(isAnthropicError(curl.json));
  });
});

describe("form posts and paths the API does not serve", () => {
  const form = '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue\r\n--b--\r\n';
  const multipart = { "content-type": "multipart/form-data; boundary=b" };

  test("an API path in another letter case is a JSON 404 in that API's format naming the right spelling", async () => {
    const openai = await send("/V1/CHAT/COMPLETIONS", { method: "POST", headers: multipart, body: form });
    assert.equal(openai.status, 404);
    assert.match(openai.json.error.message, /\/v1\/chat\/completions/);
    const anthropic = await send("/v1/Messages", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    assert.equal(anthropic.status, 404);
    assert.ok(isAnthropicError(anthropic.json), anthropic.text);
    assert.match(anthropic.json.error.message, /\/v1\/messages/);
    // A parameter segment is named by its place, never quoted back.
    const stored = await send("/V1/Responses/resp_SECRET123", { headers: { authorization: `Bearer ${key}` } });
    assert.equal(stored.status, 404);
    assert.match(stored.json.error.message, /\/v1\/responses\/\{id\}/);
    assert.doesNotMatch(stored.text, /SECRET123/);
  });

  test("any other write to a path nobody serves is a JSON 404, whatever its content type", async () => {
    for (const [method, path, headers, body] of [
      ["POST", "/nothing/here", { "content-type": "application/x-www-form-urlencoded" }, "a=1"],
      ["POST", "/", multipart, "garbage"],
      ["PUT", "/console/tokens", multipart, form],
      ["DELETE", "/login", {}, undefined],
    ] as const) {
      const answer = await send(path, { method, headers, body });
      assert.equal(answer.status, 404, `${method} ${path}: ${answer.text.slice(0, 200)}`);
      assert.equal(typeof answer.json?.error?.message, "string", `${method} ${path}`);
    }
  });

  test("a malformed form body posted to a console page is a 400, not Next's 500", async () => {
    for (const body of ["garbage", '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\ncut short']) {
      const answer = await send("/login", { method: "POST", headers: multipart, body });
      assert.equal(answer.status, 400, answer.text.slice(0, 200));
    }
    const noBoundary = await send("/setup", { method: "POST", headers: { "content-type": "multipart/form-data" }, body: form });
    assert.equal(noBoundary.status, 400);
    // A well-formed one still reaches Next, which reads it (and finds no action in it).
    const wellFormed = await send("/login", { method: "POST", headers: multipart, body: form });
    assert.ok(wellFormed.status < 500, String(wellFormed.status));
  });

  test("public/ is served: a favicon and a robots.txt that allows only the home page", async () => {
    const icon = await fetch(`${gateway.url}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get("content-type") ?? "", /image\//);
    const bytes = Buffer.from(await icon.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 4)], [0, 0, 1, 0], "an ICO header");
    const robots = await fetch(`${gateway.url}/robots.txt`);
    assert.equal(robots.status, 200);
    const text = await robots.text();
    assert.match(text, /^Disallow: \/$/m);
    assert.match(text, /^Allow: \/\$$/m);
  });
});
