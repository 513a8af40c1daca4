import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// The exact response cache through the official SDKs: a request that opts in with
// x-gateway-cache-ttl reaches the upstream once, the repeat is answered from the cache (in
// the caller's format, streamed when asked), per user, never across users. The channels
// set no prices: every cost here comes from the model catalogue.

const OPENAI_MODEL = "gpt-4o-mini";
const ANTHROPIC_MODEL = "claude-sonnet-4-20250514";
const GEMINI_MODEL = "gemini-2.0-flash";
const CACHE = { "x-gateway-cache-ttl": "60" };

let fakes: VendorFakes;
let gateway: Gateway;
/** Two tokens of one user, one of another user, one that allows no caching. */
let alice: string, aliceLaptop: string, bob: string, uncached: string;

type LogRow = {
  id: string;
  model: string;
  status: number;
  stream: boolean;
  costUsd: number;
  promptTokens: number;
  completionTokens: number;
  cacheStatus: string | null;
  cacheSavedUsd: number;
  warnings: string[] | null;
};

async function logRow(requestId: string): Promise<LogRow> {
  let found: LogRow | undefined;
  await eventually(async () => {
    const rows = (await gateway.admin("GET", "/api/admin/logs?limit=1000")).body.data as LogRow[];
    found = rows.find((candidate) => candidate.id === requestId);
    assert.ok(found, `log row ${requestId}`);
  });
  return found!;
}

const chats = () => fakes.openai.received.filter((request) => request.path === "/v1/chat/completions").length;
const messages = () => fakes.anthropic.received.filter((request) => request.path === "/v1/messages").length;
const generations = () => fakes.gemini.received.filter((request) => request.path.includes(":generateContent") || request.path.includes(":streamGenerateContent")).length;

const openai = (key: string, headers: Record<string, string> = CACHE) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: headers });

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: [OPENAI_MODEL, "fake-error"], anthropic: [ANTHROPIC_MODEL, "claude-midstream-error"], gemini: [GEMINI_MODEL] });
  const user = async (email: string) => {
    const created = await gateway.admin("POST", "/api/admin/users", { email, password: "password-123" });
    assert.equal(created.status, 201);
    return created.body.id as string;
  };
  const token = async (name: string, userId: string, cacheTtlSeconds: number | null) => {
    const created = await gateway.admin("POST", "/api/admin/tokens", { name, userId, cacheTtlSeconds });
    assert.equal(created.status, 201);
    assert.equal(created.body.cacheTtlSeconds, cacheTtlSeconds);
    gateway.secrets.add(created.body.key);
    return created.body.key as string;
  };
  const aliceId = await user("alice@example.com");
  const bobId = await user("bob@example.com");
  alice = await token("alice", aliceId, 3600);
  aliceLaptop = await token("alice laptop", aliceId, 30);
  bob = await token("bob", bobId, 3600);
  uncached = await token("no cache", bobId, null);
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

describe("exact response cache", () => {
  test("OpenAI SDK: the repeat is a hit, identical, streamed when asked, logged with the cost it saved", async () => {
    const client = openai(alice);
    const question = { model: OPENAI_MODEL, messages: [{ role: "user" as const, content: "cache me please" }], temperature: 0.2, seed: 7 };
    const before = chats();

    const first = await client.chat.completions.create(question).withResponse();
    assert.equal(first.response.headers.get("x-gateway-cache"), "miss");
    assert.equal(chats(), before + 1);
    // Still relayed as sent to an upstream of the caller's format (a translation would drop seed).
    assert.equal(fakes.openai.received.at(-1)!.body.seed, 7);

    const second = await client.chat.completions.create({ ...question, user: "end-user-7", metadata: { run: "2" } }).withResponse();
    assert.equal(second.response.headers.get("x-gateway-cache"), "hit", "user and metadata do not change the key");
    assert.equal(chats(), before + 1, "the upstream was asked once");
    assert.deepEqual(second.data.choices, first.data.choices);
    assert.deepEqual(second.data.usage, first.data.usage);

    const streamed = await client.chat.completions.create({ ...question, stream: true }).withResponse();
    assert.equal(streamed.response.headers.get("x-gateway-cache"), "hit");
    assert.match(streamed.response.headers.get("content-type") ?? "", /text\/event-stream/);
    let text = "";
    let chunks = 0;
    for await (const chunk of streamed.data) {
      chunks += 1;
      text += chunk.choices[0]?.delta.content ?? "";
    }
    assert.ok(chunks >= 2, "answered as a stream of chunks");
    assert.equal(text, first.data.choices[0]!.message.content);
    assert.equal(chats(), before + 1);

    // Another token of the same user shares the cache.
    const laptop = await openai(aliceLaptop).chat.completions.create(question).withResponse();
    assert.equal(laptop.response.headers.get("x-gateway-cache"), "hit");

    // The miss cost what the catalogue says gpt-4o-mini costs; the hit cost nothing and saved that.
    const missRow = await logRow(first.response.headers.get("x-request-id")!);
    const hitRow = await logRow(second.response.headers.get("x-request-id")!);
    assert.equal(missRow.cacheStatus, "miss");
    assert.ok(missRow.costUsd > 0, "a model priced only by the catalogue has a cost");
    assert.equal(hitRow.cacheStatus, "hit");
    assert.equal(hitRow.costUsd, 0);
    assert.equal(hitRow.promptTokens + hitRow.completionTokens, 0, "a hit spends no tokens");
    assert.equal(hitRow.cacheSavedUsd, missRow.costUsd);
    assert.equal((await logRow(streamed.response.headers.get("x-request-id")!)).stream, true);
  });

  test("OpenAI SDK: a streamed miss (relayed, usage hidden from the caller) is kept and answers a whole request", async () => {
    const client = openai(bob);
    const question = { model: OPENAI_MODEL, messages: [{ role: "user" as const, content: "stream first then whole" }] };
    const before = chats();
    let text = "";
    for await (const chunk of await client.chat.completions.create({ ...question, stream: true })) text += chunk.choices[0]?.delta.content ?? "";
    assert.ok(text.length > 0);
    const whole = await client.chat.completions.create(question).withResponse();
    assert.equal(whole.response.headers.get("x-gateway-cache"), "hit");
    assert.equal(whole.data.choices[0]!.message.content, text);
    assert.ok(whole.data.usage && whole.data.usage.completion_tokens > 0, "the usage the stream hid was kept");
    assert.equal(chats(), before + 1);
    assert.ok((await logRow(whole.response.headers.get("x-request-id")!)).cacheSavedUsd > 0);
  });

  test("another user's identical request is a miss; a changed parameter is a miss; no-store bypasses", async () => {
    const question = { model: OPENAI_MODEL, messages: [{ role: "user" as const, content: "whose answer is this" }] };
    const before = chats();
    assert.equal((await openai(alice).chat.completions.create(question).withResponse()).response.headers.get("x-gateway-cache"), "miss");
    const other = await openai(bob).chat.completions.create(question).withResponse();
    assert.equal(other.response.headers.get("x-gateway-cache"), "miss", "never across users");
    assert.equal(chats(), before + 2);

    const warmer = await openai(alice)
      .chat.completions.create({ ...question, temperature: 1.5 })
      .withResponse();
    assert.equal(warmer.response.headers.get("x-gateway-cache"), "miss", "a parameter that changes the answer changes the key");
    assert.equal(chats(), before + 3);

    const bypass = await openai(alice, { ...CACHE, "x-gateway-cache": "no-store" })
      .chat.completions.create(question)
      .withResponse();
    assert.equal(bypass.response.headers.get("x-gateway-cache"), null);
    assert.equal(chats(), before + 4, "no-store reaches the upstream");
    // Without the opt-in header nothing is read either.
    await openai(alice, {}).chat.completions.create(question);
    assert.equal(chats(), before + 5);
  });

  test("a token that allows no caching, a TTL above the token's, a malformed TTL and failed answers", async () => {
    const question = { model: OPENAI_MODEL, messages: [{ role: "user" as const, content: "no cache for me" }] };
    const before = chats();
    const first = await openai(uncached).chat.completions.create(question).withResponse();
    await openai(uncached).chat.completions.create(question);
    assert.equal(first.response.headers.get("x-gateway-cache"), null);
    assert.equal(chats(), before + 2);
    const row = await logRow(first.response.headers.get("x-request-id")!);
    assert.equal(row.cacheStatus, null);
    assert.match(row.warnings?.join("\n") ?? "", /does not allow response caching/);

    // Asking for more than the token allows is lowered to the token's ceiling, and said so.
    const long = await openai(aliceLaptop, { "x-gateway-cache-ttl": "86400" })
      .chat.completions.create({ ...question, model: OPENAI_MODEL, temperature: 0.3 })
      .withResponse();
    assert.equal(long.response.headers.get("x-gateway-cache"), "miss");
    assert.match((await logRow(long.response.headers.get("x-request-id")!)).warnings?.join("\n") ?? "", /lowered to this API key's 30 seconds/);

    await assert.rejects(openai(alice, { "x-gateway-cache-ttl": "soon" }).chat.completions.create(question), (error: unknown) => {
      assert.ok(error instanceof OpenAI.BadRequestError);
      assert.match(error.message, /x-gateway-cache-ttl must be a whole number/);
      return true;
    });

    // An upstream error is never cached: both attempts reach the upstream.
    const failing = { model: "fake-error", messages: [{ role: "user" as const, content: "too long" }] };
    const beforeErrors = chats();
    await assert.rejects(openai(alice).chat.completions.create(failing));
    await assert.rejects(openai(alice).chat.completions.create(failing));
    assert.equal(chats(), beforeErrors + 2);
  });

  test("a hit counts toward the key's requests per minute", async () => {
    const created = await gateway.admin("POST", "/api/admin/tokens", { name: "two a minute", rpm: 2, cacheTtlSeconds: 60 });
    gateway.secrets.add(created.body.key);
    const client = openai(created.body.key);
    const question = { model: OPENAI_MODEL, messages: [{ role: "user" as const, content: "rate limited hits" }] };
    await client.chat.completions.create(question);
    assert.equal((await client.chat.completions.create(question).withResponse()).response.headers.get("x-gateway-cache"), "hit");
    await assert.rejects(client.chat.completions.create(question), (error: unknown) => error instanceof OpenAI.RateLimitError);
  });

  test("Anthropic SDK: a streamed miss is kept, and replayed as Anthropic's own stream events", async () => {
    const client = new Anthropic({ apiKey: alice, baseURL: gateway.url, maxRetries: 0, defaultHeaders: CACHE });
    const question = { model: ANTHROPIC_MODEL, max_tokens: 100, messages: [{ role: "user" as const, content: "remember this answer" }] };
    const before = messages();
    const first = await client.messages.stream(question).finalMessage();
    assert.equal(messages(), before + 1);

    const events: string[] = [];
    const replay = client.messages.stream(question);
    replay.on("streamEvent", (event) => events.push(event.type));
    const second = await replay.finalMessage();
    assert.equal(messages(), before + 1, "the repeat never reached the upstream");
    assert.deepEqual(second.content, first.content);
    assert.equal(second.stop_reason, first.stop_reason);
    assert.ok(events.includes("message_start") && events.includes("content_block_delta") && events.includes("message_stop"));

    const whole = await client.messages.create(question).withResponse();
    assert.equal(whole.response.headers.get("x-gateway-cache"), "hit");
    assert.deepEqual(whole.data.content, first.content);
    assert.equal(messages(), before + 1);
    const row = await logRow(whole.response.headers.get("x-request-id")!);
    assert.ok(row.cacheSavedUsd > 0, "the catalogue prices Claude, cache reads included");
    // A stream that broke after it started is never kept: the repeat asks the upstream again.
    const broken = { ...question, model: "claude-midstream-error" };
    for (let attempt = 0; attempt < 2; attempt++) {
      const stream = await client.messages.create({ ...broken, stream: true });
      await assert.rejects(async () => {
        for await (const event of stream) void event;
      });
    }
    assert.equal(messages(), before + 3);
  });

  test("Gemini SDK: generateContent is kept and streamGenerateContent replays it", async () => {
    const client = new GoogleGenAI({ apiKey: alice, httpOptions: { baseUrl: gateway.url, headers: CACHE } });
    const before = generations();
    const first = await client.models.generateContent({ model: GEMINI_MODEL, contents: "what is cached stays cached" });
    assert.equal(generations(), before + 1);
    let text = "";
    for await (const chunk of await client.models.generateContentStream({ model: GEMINI_MODEL, contents: "what is cached stays cached" })) text += chunk.text ?? "";
    assert.equal(text, first.text);
    assert.equal(generations(), before + 1, "the streamed repeat was a hit");
    const again = await client.models.generateContent({ model: GEMINI_MODEL, contents: "what is cached stays cached" });
    assert.equal(again.text, first.text);
    assert.equal(generations(), before + 1);
  });
});
