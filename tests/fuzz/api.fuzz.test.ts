import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { after, before, test } from "node:test";
import fc from "fast-check";
import { apiRoutes } from "@/lib/http/api-routes";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "../helpers/fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Generated and mutated requests to every route of the route table, in every format: the
// gateway may refuse them, but never with a 5xx of its own, never by hanging, and always
// in the route's own error shape. FUZZ_RUNS sets the size (`npm test` runs a bounded one).

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const LIMITS = { messages: 1000, objects: 10_000, values: 100_000 };
let gateway: Gateway;
let key: string;
let fakes: { close(): Promise<void> }[] = [];

before(async () => {
  const [openai, anthropic, gemini] = [await startFakeOpenAIUpstream(), await startFakeAnthropicUpstream(), await startFakeGeminiUpstream()];
  fakes = [openai, anthropic, gemini];
  // Shape limits a tenth of the defaults, so bodies under the size limit reach past each of them.
  const limits = { MAX_REQUEST_MESSAGES: String(LIMITS.messages), MAX_JSON_OBJECTS: String(LIMITS.objects), MAX_JSON_VALUES: String(LIMITS.values) };
  gateway = await startGateway({ MAX_BODY_BYTES: String(256 * 1024), MOCK_STREAM_DELAY_MS: "0", ...limits });
  for (const channel of [
    { type: "openai", baseUrl: openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test", "text-embedding-test"] },
    { type: "anthropic", baseUrl: anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: ["claude-test"] },
    { type: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] },
    { type: "mock", models: ["mock-model"] },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel })).status, 201);
  }
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "fuzz" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await Promise.all(fakes.map((fake) => fake.close()));
});

const MODELS = ["gpt-test", "claude-test", "gemini-test", "mock-model", "text-embedding-test", "missing-model"];
const SEEDS: unknown[] = [
  { model: "gpt-test", messages: [{ role: "user", content: "hi" }], max_tokens: 5 },
  {
    model: "gpt-test",
    stream: true,
    stream_options: { include_usage: true },
    messages: [
      { role: "system", content: "s" },
      { role: "user", content: [{ type: "text", text: "hi" }] },
    ],
    tools: [{ type: "function", function: { name: "f", parameters: { type: "object", properties: { a: { type: "string" } } } } }],
  },
  { model: "claude-test", max_tokens: 5, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], system: "s", thinking: { type: "enabled", budget_tokens: 1024 } },
  {
    model: "claude-test",
    max_tokens: 5,
    stream: true,
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
    ],
  },
  {
    contents: [{ role: "user", parts: [{ text: "hi" }] }],
    generationConfig: { maxOutputTokens: 5 },
    tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT" } }] }],
  },
  { model: "gpt-test", input: [{ role: "user", content: [{ type: "input_text", text: "hi" }] }], tools: [{ type: "custom", name: "apply_patch" }] },
  { model: "text-embedding-test", input: ["a", "b"] },
  { model: "gpt-test", prompt: "hi", max_tokens: 3 },
  { model: "gpt-test", query: "q", documents: ["a", "b"] },
];
const NASTY_KEYS = ["__proto__", "constructor", "prototype", "isPrototypeOf", "hasOwnProperty", "toString", "valueOf", "then"];

/** A JSON value with a mutation applied: a value swapped, a nasty key added, or nesting wrapped around it. */
const mutated: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom("swap", "nasty", "wrap", "drop", "model")), { maxLength: 3 }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(...NASTY_KEYS),
    fc.constantFrom(...MODELS),
  )
  .map(([seed, mutations, value, nasty, model]) => {
    const copy = structuredClone(seed) as Record<string, unknown>;
    for (const [pick, kind] of mutations) {
      const objects: Record<string, unknown>[] = [];
      const visit = (node: unknown) => {
        if (node && typeof node === "object") {
          objects.push(node as Record<string, unknown>);
          Object.values(node).forEach(visit);
        }
      };
      visit(copy);
      const target = objects[pick % objects.length]!;
      const keys = Object.keys(target);
      const field = keys[pick % Math.max(keys.length, 1)];
      if (kind === "swap" && field !== undefined) target[field] = structuredClone(value);
      if (kind === "drop" && field !== undefined) delete target[field];
      if (kind === "nasty") Object.defineProperty(target, nasty, { value: structuredClone(value), enumerable: true, configurable: true, writable: true });
      if (kind === "wrap" && field !== undefined) target[field] = Array.from({ length: 1 + (pick % 40) }).reduce((inner) => [inner], target[field]);
      if (kind === "model") copy.model = model;
    }
    return copy;
  });

const body = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SEEDS).map((value) => JSON.stringify(value)) },
  { weight: 6, arbitrary: mutated.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.json() },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((depth) => `{"model":"gpt-test","messages":${"[".repeat(depth)}${"]".repeat(depth)}}`) },
  { weight: 1, arbitrary: fc.constant("") },
);

const ROUTES = apiRoutes.routes().filter((route) => !route.path.startsWith("/api/admin") || route.method === "GET");
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...MODELS) },
  { weight: 1, arbitrary: fc.constantFrom("models/gpt-test", "%E0%A4%A", "%00", "..", "%2F..%2F", "x%0D%0Ay") },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
);
const action = fc.constantFrom(":generateContent", ":streamGenerateContent", ":countTokens", ":embedContent", ":batchEmbedContents", "", ":unknown");
const query = fc.oneof(
  fc.constant(""),
  fc.constantFrom("?alt=sse", "?key=KEY", "?alt=%ZZ", "?key=%E0%A4%A", "?a=1&a=2", "?limit=-1&offset=abc"),
  fc.string({ maxLength: 20 }).map((text) => `?q=${text}`),
);

const request = fc.record({
  route: fc.constantFrom(...ROUTES),
  method: fc.oneof({ weight: 5, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS") }),
  segment,
  action,
  query,
  body,
  auth: fc.oneof({ weight: 8, arbitrary: fc.constant("native") }, { weight: 2, arbitrary: fc.constantFrom("bearer", "x-api-key", "goog", "none", "wrong") }),
  version: fc.constantFrom("2023-06-01", "", "latest", "2023-06-01\t"),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constant("application/json") },
    { weight: 1, arbitrary: fc.constantFrom("", "text/plain", "application/json; charset=utf-16", "multipart/form-data; boundary=x") },
  ),
  encoding: fc.oneof({ weight: 8, arbitrary: fc.constant("") }, { weight: 1, arbitrary: fc.constantFrom("gzip", "br", "zstd", "identity") }),
  extraHeader: fc.tuple(
    fc.constantFrom("x-request-id", "x-base-url", "x-gateway-console", "x-gateway-token-id", "origin", "accept", "x-stainless-retry-count"),
    fc.string({ maxLength: 20 }).filter((text) => !/[\r\n\0]/.test(text)),
  ),
});

function formatOf(path: string, method: string): "anthropic" | "gemini" | "openai" {
  if (path.startsWith("/v1/messages")) return "anthropic";
  if (path.startsWith("/v1beta")) return "gemini";
  // Gemini's methods under /v1 (@google/genai 3). A GET there answers in the shape of the
  // caller's credentials, which the OpenAI check (an error with a message) accepts.
  const pathname = path.split("?")[0]!;
  if (method === "POST" && pathname.startsWith("/v1/models/") && pathname !== "/v1/models/") return "gemini";
  return "openai";
}

const SHAPES = {
  openai: (json: any) => typeof json?.error?.message === "string",
  anthropic: (json: any) => json?.type === "error" && typeof json.error?.message === "string",
  gemini: (json: any) => typeof json?.error?.code === "number" && typeof json.error.message === "string",
};

test(`fuzz: ${RUNS} generated requests to every route, no 5xx, no hang, errors in the route's format`, { timeout: 10 * 60_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(request, async (input) => {
      const method = input.method || input.route.method;
      let path = input.route.path.replace(/:\w+/g, input.segment).replace(/\*\w+/, `${input.segment}${input.action}`);
      path += input.query.replace("KEY", key);
      const headers: Record<string, string> = {};
      const auth = input.auth === "native" ? ({ anthropic: "x-api-key", gemini: "goog", openai: "bearer" } as const)[formatOf(path, method)] : input.auth;
      if (input.route.path.startsWith("/api/admin")) headers.authorization = `Bearer ${gateway.adminKey}`;
      else if (auth === "bearer") headers.authorization = `Bearer ${key}`;
      if (auth === "x-api-key") headers["x-api-key"] = key;
      if (auth === "goog") headers["x-goog-api-key"] = key;
      if (auth === "wrong") headers.authorization = "Bearer sk-wrong";
      if (input.version) headers["anthropic-version"] = input.version;
      if (input.contentType) headers["content-type"] = input.contentType;
      const [name, value] = input.extraHeader;
      headers[name] = value;
      let payload: Buffer | string | undefined = method === "GET" || method === "OPTIONS" ? undefined : input.body;
      if (payload !== undefined && input.encoding) {
        headers["content-encoding"] = input.encoding;
        if (input.encoding === "gzip") payload = gzipSync(payload);
      }
      const response = await fetch(`${gateway.url}${path}`, { method, headers, body: payload as BodyInit | undefined, signal: AbortSignal.timeout(20_000) });
      const text = await response.text();
      const context = `${method} ${path} -> ${response.status}: ${text.slice(0, 300)}`;
      assert.ok(response.status < 500, context);
      // fetch resolves dot segments (`/v1/models/..` is sent as `/v1/`): judge the path it sent.
      const sent = new URL(path, gateway.url).pathname;
      if (response.status >= 400 && sent.startsWith("/v1")) {
        const json = JSON.parse(text);
        assert.ok(SHAPES[formatOf(sent, method)](json), context);
      }
      assert.equal(text.includes(key), false, "the key is never echoed");
    }),
    { numRuns: RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined, endOnFailure: true },
  );
  assert.equal((await fetch(`${gateway.url}/api/health`)).status, 200);
  assert.doesNotMatch(gateway.output(), /"level":(50|60)/, "no unhandled failure was logged");
});

// Form posts where the API serves nothing: API paths in another letter case, unknown
// paths, and the console's pages (whose server actions Next parses). Refused or served,
// never a 5xx; outside the console always JSON.
const FORM_RUNS = Math.max(50, Math.round(RUNS / 10));
const CONSOLE_PAGES = ["/login", "/setup", "/signup", "/console", "/console/tokens"];
const casePath = fc
  .tuple(fc.constantFrom(...apiRoutes.routes().map((route) => route.path.replace(/[:*]\w+/g, "x"))), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }))
  .map(([path, flips]) => [...path].map((char, index) => (flips[index % flips.length] ? char.toUpperCase() : char)).join(""));
const formPath = fc.oneof(
  { weight: 4, arbitrary: casePath },
  { weight: 2, arbitrary: fc.string({ maxLength: 16 }).map((text) => `/${encodeURIComponent(text)}`) },
  { weight: 1, arbitrary: fc.constantFrom("/", "/favicon.ico", "/robots.txt", "/_next/x", "/api/auth/x", "/api/nothing", "/V1BETA/MODELS/x:generateContent") },
  { weight: 2, arbitrary: fc.constantFrom(...CONSOLE_PAGES) },
);
const formBody = fc.oneof(
  fc.constant('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue\r\n--b--\r\n'),
  fc.constant('--b\r\nContent-Disposition: form-data; name="a"\r\n\r\ncut short'),
  fc.constant("a=1&b=%zz&c"),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(""),
);
const formRequest = fc.record({
  path: formPath,
  method: fc.constantFrom("POST", "POST", "PUT", "PATCH", "DELETE"),
  contentType: fc.constantFrom("multipart/form-data; boundary=b", "multipart/form-data", "application/x-www-form-urlencoded", "text/plain;charset=UTF-8"),
  action: fc.boolean(),
  body: formBody,
});

test("a page asked for with a key in its query is redirected without it, so the page never echoes the key (seed 1384048454 found `/mcp/..?key=`)", async () => {
  for (const path of [`/?key=${key}`, `/mcp/..?key=${key}`, `/console/logs?status=4xx&q=${key}`]) {
    const response = await fetch(`${gateway.url}${path}`, { redirect: "manual" });
    const text = await response.text();
    assert.equal(response.status, 303, path);
    assert.ok(!(response.headers.get("location") ?? "").includes(key) && !text.includes(key), path);
  }
  assert.match((await fetch(`${gateway.url}/console/logs?status=4xx&q=${key}`, { redirect: "manual" })).headers.get("location") ?? "", /\/console\/logs\?status=4xx$/);
  // The API still takes Gemini's ?key=.
  assert.equal((await fetch(`${gateway.url}/v1beta/models?key=${key}`)).status, 200);
});

test(`fuzz: ${FORM_RUNS} form posts to wrong-case, unknown and console paths, no 5xx, JSON outside the console`, { timeout: 10 * 60_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(formRequest, async (input) => {
      const headers: Record<string, string> = { "content-type": input.contentType };
      if (input.action) headers["next-action"] = "0123456789abcdef";
      const response = await fetch(`${gateway.url}${input.path}`, {
        method: input.method,
        headers,
        body: (typeof input.body === "string" ? input.body : Uint8Array.from(input.body)) as BodyInit,
        redirect: "manual",
        signal: AbortSignal.timeout(20_000),
      });
      const text = await response.text();
      const context = `${input.method} ${input.path} (${input.contentType}) -> ${response.status}: ${text.slice(0, 200)}`;
      assert.ok(response.status < 500, context);
      const consolePage =
        (input.method === "POST" && CONSOLE_PAGES.some((page) => input.path === page || input.path.startsWith(`${page}/`))) || input.path.startsWith("/api/auth/");
      if (!consolePage && response.status >= 400) assert.equal(typeof JSON.parse(text)?.error?.message, "string", context);
    }),
    { numRuns: FORM_RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined, endOnFailure: true },
  );
  assert.doesNotMatch(gateway.output(), /"level":(50|60)/, "no unhandled failure was logged");
});

// Bodies built to cost the most per byte: many tiny messages, many empty arrays, floods of
// tiny values, deep nesting, and gzip bombs, compressed or not, on one kept-alive connection.
// Each past a limit is refused with a 413 (400 for nesting) in its route's format, never a
// 5xx, and the request after it on the same connection is answered.
const HEAVY_RUNS = Math.max(24, Math.round(RUNS / 50));
const HEAVY_ROUTES = [
  { path: "/v1/chat/completions", format: "openai" as const, wrap: (messages: unknown[]) => ({ model: "gpt-test", messages }) },
  { path: "/v1/messages", format: "anthropic" as const, wrap: (messages: unknown[]) => ({ model: "claude-test", max_tokens: 5, messages }) },
  { path: "/v1/messages/count_tokens", format: "anthropic" as const, wrap: (messages: unknown[]) => ({ model: "claude-test", messages }) },
  {
    path: "/v1beta/models/gemini-test:generateContent",
    format: "gemini" as const,
    wrap: (messages: unknown[]) => ({ contents: messages.map((message) => ({ role: "user", parts: [{ text: (message as { content: unknown }).content }] })) }),
  },
  { path: "/v1/responses", format: "openai" as const, wrap: (messages: unknown[]) => ({ model: "gpt-test", input: messages }) },
];
const heavy = fc.record({
  route: fc.constantFrom(...HEAVY_ROUTES),
  shape: fc.constantFrom("messages", "objects", "values", "deep", "bomb"),
  // From a tenth of each limit to twice it.
  size: fc.integer({ min: 100, max: 2000 }),
  gzip: fc.boolean(),
});

let bombMember: Buffer | undefined;

/** The body, and whether it holds more than a limit allows. */
function heavyBody(shape: string, size: number, wrap: (messages: unknown[]) => unknown): { body: Buffer; past: boolean } {
  // 4 KB that expand to 4 MB, repeated: a compressed body far longer than what is read before the limit.
  if (shape === "bomb") return { body: Buffer.concat(Array.from({ length: 20 + (size % 80) }, () => (bombMember ??= gzipSync(Buffer.alloc(4_000_000, " "))))), past: true };
  const message = (content: unknown) => ({ role: "user", content });
  if (shape === "deep") {
    const depth = 126 + (size % 300);
    const text = JSON.stringify(wrap([message("[".repeat(depth) + "]".repeat(depth))]));
    // Inside three objects and arrays at least (the body, its messages, one of them).
    return { body: Buffer.from(text.replace(`"${"[".repeat(depth)}${"]".repeat(depth)}"`, "[".repeat(depth) + "]".repeat(depth))), past: true };
  }
  if (shape === "messages") return { body: Buffer.from(JSON.stringify(wrap(Array.from({ length: size }, () => message("a"))))), past: size > LIMITS.messages };
  if (shape === "objects") {
    const count = size * 10;
    const body = JSON.stringify(wrap([message("a")])).replace('"a"', `[${"[],".repeat(count - 1)}[]]`);
    return { body: Buffer.from(body), past: count > LIMITS.objects };
  }
  const count = size * 100;
  const body = JSON.stringify({ ...(wrap([message("a")]) as object), x: [] }).replace('"x":[]', `"x":[${"0,".repeat(count - 1)}0]`);
  return { body: Buffer.from(body), past: count > LIMITS.values };
}

test(`fuzz: ${HEAVY_RUNS} heavy bodies (many tiny messages, objects or values, deep nesting, gzip bombs) on one kept-alive connection`, { timeout: 10 * 60_000 }, async () => {
  const http = await import("node:http");
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const send = (path: string, headers: Record<string, string>, body: Buffer) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(`${gateway.url}${path}`, { method: "POST", agent, headers: { ...headers, "content-length": String(body.length) } }, (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text }));
      });
      request.setTimeout(30_000, () => request.destroy(new Error(`no answer to ${path} within 30 s`)));
      request.on("error", reject);
      request.end(body);
    });
  const auth = { openai: { authorization: `Bearer ${key}` }, anthropic: { "x-api-key": key, "anthropic-version": "2023-06-01" }, gemini: { "x-goog-api-key": key } };
  try {
    await fc.assert(
      fc.asyncProperty(heavy, async ({ route, shape, size, gzip }) => {
        let { body, past } = heavyBody(shape, size, route.wrap);
        past ||= body.length > 256 * 1024;
        const headers: Record<string, string> = { "content-type": "application/json", ...auth[route.format] };
        if (shape === "bomb") headers["content-encoding"] = "gzip";
        else if (gzip) {
          body = gzipSync(body);
          headers["content-encoding"] = "gzip";
        }
        const refused = await send(route.path, headers, body);
        const context = `${shape} ${size} gzip=${gzip} ${route.path} -> ${refused.status}: ${refused.text.slice(0, 200)}`;
        assert.ok(refused.status < 500, context);
        if (refused.status >= 400) assert.ok(SHAPES[route.format](JSON.parse(refused.text)), context);
        if (past) assert.ok(refused.status === 413 || (shape === "deep" && refused.status === 400), context);
        const next = await send(
          "/v1/chat/completions",
          { "content-type": "application/json", authorization: `Bearer ${key}` },
          Buffer.from(JSON.stringify({ model: "mock-model", messages: [{ role: "user", content: "hi" }] })),
        );
        assert.equal(next.status, 200, `after ${context}: ${next.text.slice(0, 200)}`);
      }),
      { numRuns: HEAVY_RUNS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined, endOnFailure: true },
    );
  } finally {
    agent.destroy();
  }
});
