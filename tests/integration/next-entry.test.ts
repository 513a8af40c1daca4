import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { startNextEntry, type NextEntry } from "../helpers/start-next";

// The API answers alike through both entries: `npm start`'s node:http path (server.ts) and
// Next's own router (`next start`, the route files generated under app/). One request of
// each endpoint family, and each kind of refusal, is sent to both, and the status, the
// headers a client reads and the shape of the body must agree.

type Credential = "bearer" | "x-api-key" | "goog-header" | "goog-query" | "admin" | "none";
interface Probe {
  name: string;
  method: string;
  path: string;
  credential: Credential;
  headers?: Record<string, string>;
  body?: unknown;
  /** The status both entries must give. */
  status: number;
}

const chat = { model: "mock-chat", messages: [{ role: "user", content: "Hello there" }] };
const anthropicVersion = { "anthropic-version": "2023-06-01" };
const gemini = { contents: [{ role: "user", parts: [{ text: "Hello there" }] }] };

const PROBES: Probe[] = [
  { name: "OpenAI chat", method: "POST", path: "/v1/chat/completions", credential: "bearer", body: chat, status: 200 },
  {
    name: "OpenAI chat, streamed",
    method: "POST",
    path: "/v1/chat/completions",
    credential: "bearer",
    body: { ...chat, stream: true, stream_options: { include_usage: true } },
    status: 200,
  },
  { name: "OpenAI responses", method: "POST", path: "/v1/responses", credential: "bearer", body: { model: "mock-chat", input: "Hello there", store: false }, status: 200 },
  // The built-in mock serves chat only: these are the "no channel serves it" answers.
  { name: "OpenAI completions", method: "POST", path: "/v1/completions", credential: "bearer", body: { model: "mock-chat", prompt: "Once" }, status: 404 },
  { name: "OpenAI embeddings", method: "POST", path: "/v1/embeddings", credential: "bearer", body: { model: "mock-chat", input: "hi" }, status: 404 },
  { name: "OpenAI models", method: "GET", path: "/v1/models", credential: "bearer", status: 200 },
  { name: "OpenAI one model", method: "GET", path: "/v1/models/mock-chat", credential: "bearer", status: 200 },
  { name: "OpenAI stored response, unknown", method: "GET", path: "/v1/responses/resp_missing", credential: "bearer", status: 404 },
  { name: "OpenAI without a key", method: "POST", path: "/v1/chat/completions", credential: "none", body: chat, status: 401 },
  { name: "OpenAI bad JSON", method: "POST", path: "/v1/chat/completions", credential: "bearer", body: "{not json", status: 400 },
  { name: "Anthropic messages", method: "POST", path: "/v1/messages", credential: "x-api-key", headers: anthropicVersion, body: { ...chat, max_tokens: 64 }, status: 200 },
  {
    name: "Anthropic messages, streamed",
    method: "POST",
    path: "/v1/messages",
    credential: "x-api-key",
    headers: anthropicVersion,
    body: { ...chat, max_tokens: 64, stream: true },
    status: 200,
  },
  { name: "Anthropic count_tokens", method: "POST", path: "/v1/messages/count_tokens", credential: "x-api-key", headers: anthropicVersion, body: chat, status: 200 },
  { name: "Anthropic models", method: "GET", path: "/v1/models", credential: "x-api-key", headers: anthropicVersion, status: 200 },
  { name: "Anthropic one model", method: "GET", path: "/v1/models/mock-chat", credential: "x-api-key", headers: anthropicVersion, status: 200 },
  { name: "Anthropic without its version header", method: "POST", path: "/v1/messages", credential: "x-api-key", body: { ...chat, max_tokens: 64 }, status: 400 },
  { name: "Gemini generateContent, v1beta", method: "POST", path: "/v1beta/models/mock-chat:generateContent", credential: "goog-header", body: gemini, status: 200 },
  { name: "Gemini generateContent, v1", method: "POST", path: "/v1/models/mock-chat:generateContent", credential: "goog-header", body: gemini, status: 200 },
  { name: "Gemini stream, v1, SSE", method: "POST", path: "/v1/models/mock-chat:streamGenerateContent?alt=sse", credential: "goog-header", body: gemini, status: 200 },
  { name: "Gemini stream, v1beta, JSON array", method: "POST", path: "/v1beta/models/mock-chat:streamGenerateContent", credential: "goog-query", body: gemini, status: 200 },
  { name: "Gemini countTokens", method: "POST", path: "/v1/models/mock-chat:countTokens", credential: "goog-query", body: gemini, status: 200 },
  { name: "Gemini models, v1beta", method: "GET", path: "/v1beta/models", credential: "goog-header", status: 200 },
  { name: "Gemini models, v1", method: "GET", path: "/v1/models", credential: "goog-header", status: 200 },
  { name: "Gemini one model, v1", method: "GET", path: "/v1/models/mock-chat", credential: "goog-query", status: 200 },
  { name: "Gemini one model, unknown", method: "GET", path: "/v1/models/no-such-model", credential: "goog-header", status: 404 },
  { name: "Gemini unknown model", method: "POST", path: "/v1/models/no-such-model:generateContent", credential: "goog-header", body: gemini, status: 404 },
  { name: "Gemini unknown method", method: "POST", path: "/v1beta/models/mock-chat:predictLongRunning", credential: "goog-header", body: gemini, status: 404 },
  { name: "admin tokens", method: "GET", path: "/api/admin/tokens", credential: "admin", status: 200 },
  { name: "admin without the key", method: "GET", path: "/api/admin/channels", credential: "none", status: 401 },
  { name: "admin unknown path", method: "GET", path: "/api/admin/nothing-here", credential: "admin", status: 404 },
  { name: "health", method: "GET", path: "/api/health", credential: "none", status: 200 },
  { name: "OpenAPI document", method: "GET", path: "/openapi.json", credential: "none", status: 200 },
  { name: "metrics", method: "GET", path: "/metrics", credential: "admin", status: 200 },
  // Refusals by the route table itself.
  { name: "405 on an OpenAI path", method: "GET", path: "/v1/chat/completions", credential: "bearer", status: 405 },
  { name: "405 on an Anthropic path", method: "PUT", path: "/v1/messages", credential: "x-api-key", headers: anthropicVersion, status: 405 },
  { name: "405 on a Gemini path", method: "DELETE", path: "/v1beta/models/mock-chat:generateContent", credential: "goog-header", status: 405 },
  { name: "405 on an admin path", method: "PUT", path: "/api/admin/tokens", credential: "admin", status: 405 },
  { name: "unknown /v1 path", method: "POST", path: "/v1/no/such/endpoint", credential: "bearer", body: {}, status: 404 },
  { name: "unknown /v1beta path", method: "GET", path: "/v1beta/tunedModels", credential: "goog-header", status: 404 },
  // Writes nobody serves, form posts, and the files in public/.
  {
    name: "a form post to the home page",
    method: "POST",
    path: "/",
    credential: "none",
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--b--\r\n',
    status: 404,
  },
  { name: "a DELETE of a console page", method: "DELETE", path: "/console/tokens", credential: "none", status: 404 },
  {
    name: "a malformed form post to a console page",
    method: "POST",
    path: "/login",
    credential: "none",
    headers: { "content-type": "multipart/form-data; boundary=b" },
    body: "garbage",
    status: 400,
  },
  { name: "favicon", method: "GET", path: "/favicon.ico", credential: "none", status: 200 },
  { name: "robots.txt", method: "GET", path: "/robots.txt", credential: "none", status: 200 },
  {
    name: "preflight",
    method: "OPTIONS",
    path: "/v1/chat/completions",
    credential: "none",
    headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    status: 204,
  },
  {
    name: "a browser's call gets CORS headers",
    method: "POST",
    path: "/v1/chat/completions",
    credential: "bearer",
    headers: { origin: "https://app.example" },
    body: chat,
    status: 200,
  },
];

// Headers a client or browser reads; the rest (Next's security headers on every page,
// dates, lengths) may differ between the entries.
const KEY_HEADERS = [
  "content-type",
  "allow",
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-expose-headers",
  "access-control-max-age",
];

interface Entry {
  url: string;
  adminKey: string;
  key: string;
}

async function send(entry: Entry, probe: Probe) {
  const headers: Record<string, string> = { ...probe.headers };
  let path = probe.path;
  if (probe.credential === "bearer") headers.authorization = `Bearer ${entry.key}`;
  if (probe.credential === "x-api-key") headers["x-api-key"] = entry.key;
  if (probe.credential === "goog-header") headers["x-goog-api-key"] = entry.key;
  if (probe.credential === "goog-query") path += `${path.includes("?") ? "&" : "?"}key=${entry.key}`;
  if (probe.credential === "admin") headers.authorization = `Bearer ${entry.adminKey}`;
  if (probe.body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${entry.url}${path}`, {
    method: probe.method,
    headers,
    body: probe.body === undefined ? undefined : typeof probe.body === "string" ? probe.body : JSON.stringify(probe.body),
  });
  const text = await response.text();
  const keyHeaders = Object.fromEntries(KEY_HEADERS.map((name) => [name, response.headers.get(name)]));
  return { status: response.status, headers: keyHeaders, hasRequestId: response.headers.has("x-request-id"), body: bodyShape(response.headers.get("content-type"), text) };
}

/** A value with every leaf replaced by its type: ids, times and counts differ, the shape may not. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, child]) => [key, shape(child)]),
    );
  }
  return value === null ? "null" : typeof value;
}

function bodyShape(contentType: string | null, text: string): unknown {
  if (contentType?.startsWith("text/event-stream")) {
    return text
      .split(/\r?\n\r?\n/)
      .filter((event) => event.trim() !== "")
      .map((event) =>
        event.split(/\r?\n/).map((line) => {
          const data = /^data: ?(.*)$/.exec(line)?.[1];
          if (data === undefined) return line; // `event:` names are compared as they are
          try {
            return shape(JSON.parse(data));
          } catch {
            return data;
          }
        }),
      );
  }
  if (contentType?.startsWith("application/json")) return shape(JSON.parse(text));
  return text.length > 0 ? "non-empty text" : "empty";
}

let gateway: Gateway;
let next: NextEntry;
const entries: { node: Entry; next: Entry } = {} as never;

before(async () => {
  [gateway, next] = await Promise.all([startGateway(), startNextEntry()]);
  const nodeToken = await gateway.admin("POST", "/api/admin/tokens", { name: "node entry" });
  const nextToken = await next.admin("POST", "/api/admin/tokens", { name: "next entry" });
  assert.equal(nextToken.status, 201, "the admin API answers under next start");
  entries.node = { url: gateway.url, adminKey: gateway.adminKey, key: nodeToken.body.key };
  entries.next = { url: next.url, adminKey: next.adminKey, key: nextToken.body.key };
});

after(async () => {
  await Promise.all([gateway?.stop(), next?.stop()]);
});

describe("npm start and next start answer alike", () => {
  for (const probe of PROBES) {
    test(`${probe.name}: ${probe.method} ${probe.path}`, async () => {
      const [fromNode, fromNext] = await Promise.all([send(entries.node, probe), send(entries.next, probe)]);
      assert.equal(fromNode.status, probe.status, `npm start: ${JSON.stringify(fromNode.body).slice(0, 300)}`);
      assert.deepEqual(fromNext, fromNode);
    });
  }

  test("errors keep each API's own shape under next start", async () => {
    const openAI = await send(entries.next, PROBES.find((probe) => probe.name === "unknown /v1 path")!);
    assert.deepEqual(openAI.body, { error: { code: "string", message: "string", param: "null", type: "string" } });
    const geminiError = await send(entries.next, PROBES.find((probe) => probe.name === "405 on a Gemini path")!);
    assert.deepEqual(geminiError.body, { error: { code: "number", message: "string", status: "string" } });
    assert.equal(geminiError.headers.allow, "GET, POST");
    const anthropicError = await send(entries.next, PROBES.find((probe) => probe.name === "405 on an Anthropic path")!);
    assert.equal((anthropicError.body as { type: string }).type, "string");
    const preflight = await send(entries.next, PROBES.find((probe) => probe.name === "preflight")!);
    assert.equal(preflight.headers["access-control-allow-origin"], "*");
    // GET /v1/models/{model} answers in the caller's API's shape.
    const byApi = async (name: string) => (await send(entries.next, PROBES.find((probe) => probe.name === name)!)).body;
    assert.deepEqual(await byApi("OpenAI one model"), { created: "number", id: "string", object: "string", owned_by: "string" });
    assert.deepEqual(await byApi("Anthropic one model"), { created_at: "string", display_name: "string", id: "string", type: "string" });
    assert.equal(((await byApi("Gemini one model, v1")) as { name: string }).name, "string");
    assert.deepEqual(await byApi("Gemini one model, unknown"), { error: { code: "number", message: "string", status: "string" } });
  });
});
