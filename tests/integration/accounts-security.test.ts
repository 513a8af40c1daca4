import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { signIn } from "../helpers/console-sign-in";
import { eventually } from "../helpers/eventually";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Who may do what, checked on the server on every use: sessions follow the account as it
// stands now, nobody reaches another user's objects by id, cross-site requests cannot use
// the console cookie, and sign-in guessing is throttled on the real peer address.

const ADMIN = { email: "admin@example.com", password: "admin-password-123" };
let gateway: Gateway;
let upstream: Awaited<ReturnType<typeof startFakeOpenAIUpstream>>;
const users: Record<"alice" | "bob", { id: string; email: string; password: string; token: { id: string; key: string } }> = {} as never;

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  gateway = await startGateway({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  assert.equal(
    (await gateway.admin("POST", "/api/admin/channels", { name: "openai", type: "openai", baseUrl: upstream.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test"] })).status,
    201,
  );
  for (const name of ["alice", "bob"] as const) {
    const email = `${name}@example.com`;
    const password = `${name}-password-123`;
    const created = await gateway.admin("POST", "/api/admin/users", { email, password });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const token = (await gateway.admin("POST", "/api/admin/tokens", { name, userId: created.body.id })).body;
    users[name] = { id: created.body.id, email, password, token: { id: token.id, key: token.key } };
  }
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

const origin = () => gateway.url;

/** A Playground-style chat: the session cookie, optionally as one of the user's tokens. */
async function consoleChat(cookie: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { cookie, origin: origin(), "content-type": "application/json", "x-gateway-console": "1", ...headers },
    body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: response.status, id: response.headers.get("x-request-id"), body: (await response.json()) as any };
}

async function keyChat(key: string) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hi" }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function adminWithCookie(cookie: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { cookie, origin: origin(), "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("objects by id", () => {
  test("a user cannot chat as another user's token", async () => {
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    assert.ok(alice);
    assert.equal((await consoleChat(alice, { "x-gateway-token-id": users.alice.token.id })).status, 200);
    const stolen = await consoleChat(alice, { "x-gateway-token-id": users.bob.token.id });
    assert.equal(stolen.status, 403);
  });

  test("a user cannot read or delete another user's stored responses", async () => {
    const created = await fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${users.bob.token.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", input: "remember this" }),
    });
    const response = (await created.json()) as any;
    assert.equal(created.status, 200, JSON.stringify(response));
    const asAlice = { authorization: `Bearer ${users.alice.token.key}` };
    for (const [method, path] of [
      ["GET", `/v1/responses/${response.id}`],
      ["GET", `/v1/responses/${response.id}/input_items`],
      ["DELETE", `/v1/responses/${response.id}`],
    ]) {
      const attempt = await fetch(`${gateway.url}${path}`, { method, headers: asAlice });
      assert.equal(attempt.status, 404, `${method} ${path}`);
      await attempt.arrayBuffer();
    }
    const previous = await fetch(`${gateway.url}/v1/responses`, {
      method: "POST",
      headers: { ...asAlice, "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-test", input: "go on", previous_response_id: response.id }),
    });
    assert.equal(previous.status, 404);
    await previous.arrayBuffer();
    const own = await fetch(`${gateway.url}/v1/responses/${response.id}`, { headers: { authorization: `Bearer ${users.bob.token.key}` } });
    assert.equal(own.status, 200);
    await own.arrayBuffer();
  });

  test("a user cannot read another user's recorded upstream exchange", async () => {
    const bob = (await signIn(gateway.url, users.bob.email, users.bob.password))!;
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    const chat = await consoleChat(bob, { "x-gateway-capture": "1" });
    assert.equal(chat.status, 200);
    await eventually(async () => {
      const own = await fetch(`${gateway.url}/api/console/captures/${chat.id}`, { headers: { cookie: bob } });
      assert.equal(own.status, 200);
      await own.arrayBuffer();
    });
    const other = await fetch(`${gateway.url}/api/console/captures/${chat.id}`, { headers: { cookie: alice } });
    assert.equal(other.status, 404);
    await other.arrayBuffer();
  });

  test("a user's session is not an admin's", async () => {
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    assert.equal((await adminWithCookie(alice, "GET", "/api/admin/users")).status, 403);
    assert.equal((await adminWithCookie(alice, "PATCH", `/api/admin/users/${users.alice.id}`, { role: "admin" })).status, 403);
    assert.equal((await adminWithCookie(alice, "POST", "/api/admin/tokens", { name: "mine", userId: users.bob.id })).status, 403);
  });
});

describe("sessions follow the account", () => {
  test("promotion and demotion apply to an open session at once", async () => {
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    assert.equal((await adminWithCookie(alice, "GET", "/api/admin/users")).status, 403);
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${users.alice.id}`, { role: "admin" })).status, 200);
    await eventually(async () => assert.equal((await adminWithCookie(alice, "GET", "/api/admin/users")).status, 200));
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${users.alice.id}`, { role: "user" })).status, 200);
    await eventually(async () => assert.equal((await adminWithCookie(alice, "GET", "/api/admin/users")).status, 403));
  });

  test("disabling ends the sessions and the tokens; enabling restores the tokens", async () => {
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    assert.equal((await consoleChat(alice)).status, 200);
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${users.alice.id}`, { disabled: true })).status, 200);
    await eventually(async () => assert.equal((await consoleChat(alice)).status, 401));
    await eventually(async () => assert.equal(await keyChat(users.alice.token.key), 401));
    assert.equal(await signIn(gateway.url, users.alice.email, users.alice.password), null, "a disabled account cannot sign in");
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${users.alice.id}`, { disabled: false })).status, 200);
    await eventually(async () => assert.equal(await keyChat(users.alice.token.key), 200));
  });

  test("a new password signs the account out everywhere", async () => {
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    assert.equal((await consoleChat(alice)).status, 200);
    users.alice.password = "alice-new-password-456";
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${users.alice.id}`, { password: users.alice.password })).status, 200);
    await eventually(async () => assert.equal((await consoleChat(alice)).status, 401));
    const fresh = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    assert.equal((await consoleChat(fresh)).status, 200);
  });

  test("the last admin cannot be demoted or deleted", async () => {
    const list = (await gateway.admin("GET", "/api/admin/users")).body.data as any[];
    const admin = list.find((user) => user.email === ADMIN.email);
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${admin.id}`, { role: "user" })).status, 400);
    assert.equal((await gateway.admin("DELETE", `/api/admin/users/${admin.id}`)).status, 400);
  });
});

describe("cross-site requests", () => {
  test("the admin API refuses a console cookie from another origin, and bodies that are not JSON", async () => {
    const admin = (await signIn(gateway.url, ADMIN.email, ADMIN.password))!;
    assert.ok(admin);
    const crossSite = await adminWithCookie(admin, "POST", "/api/admin/tokens", { name: "csrf" }, { origin: "https://evil.example" });
    assert.equal(crossSite.status, 403);
    const noOriginButCrossSite = await adminWithCookie(admin, "POST", "/api/admin/tokens", { name: "csrf" }, { origin: "", "sec-fetch-site": "cross-site" });
    assert.equal(noOriginButCrossSite.status, 403);
    const plain = await adminWithCookie(admin, "POST", "/api/admin/tokens", { name: "csrf" }, { "content-type": "text/plain" });
    assert.equal(plain.status, 415);
    const sameSite = await adminWithCookie(admin, "POST", "/api/admin/tokens", { name: "console" });
    assert.equal(sameSite.status, 201);
    gateway.secrets.add(sameSite.body.key);
  });

  test("the API refuses a console-session chat from another origin", async () => {
    const alice = (await signIn(gateway.url, users.alice.email, users.alice.password))!;
    const response = await consoleChat(alice, { origin: "https://evil.example" });
    assert.equal(response.status, 403);
  });

  test("console pages carry security headers", async () => {
    const response = await fetch(`${gateway.url}/login`);
    await response.arrayBuffer();
    assert.equal(response.headers.get("x-frame-options"), "DENY");
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.match(response.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.ok(response.headers.get("referrer-policy"));
  });
});

describe("sign-in throttling", () => {
  test("rotating X-Forwarded-For buys no extra guesses when no proxy is trusted", async () => {
    const email = users.bob.email;
    for (let guess = 0; guess < 6; guess += 1) {
      assert.equal(await signIn(gateway.url, email, `wrong-${guess}`, { "x-forwarded-for": `203.0.113.${guess}` }), null);
    }
    assert.equal(await signIn(gateway.url, email, users.bob.password, { "x-forwarded-for": "198.51.100.7" }), null, "still paused for this address");
  });
});

describe("sign-in throttling behind a trusted proxy", () => {
  let proxied: Gateway;
  before(async () => {
    proxied = await startGateway({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, TRUSTED_PROXIES: "127.0.0.1,::1" });
  });
  after(async () => proxied?.stop());

  test("a guesser is paused, by address, without locking the owner out", async () => {
    const from = (address: string) => ({ "x-forwarded-for": address });
    assert.ok(await signIn(proxied.url, ADMIN.email, ADMIN.password, from("192.0.2.10")), "the owner signs in from home");
    // One address guessing: paused after five.
    for (let guess = 0; guess < 5; guess += 1) assert.equal(await signIn(proxied.url, ADMIN.email, `wrong-${guess}`, from("198.51.100.1")), null);
    assert.equal(await signIn(proxied.url, ADMIN.email, ADMIN.password, from("198.51.100.1")), null);
    // Many addresses guessing: the account pauses for addresses it has never signed in from...
    for (let guess = 0; guess < 50; guess += 1) await signIn(proxied.url, ADMIN.email, `spray-${guess}`, from(`203.0.113.${guess + 1}`));
    assert.equal(await signIn(proxied.url, ADMIN.email, ADMIN.password, from("192.0.2.99")), null);
    // ...but the owner, from an address that signed in before, still gets in.
    assert.ok(await signIn(proxied.url, ADMIN.email, ADMIN.password, from("192.0.2.10")));
  });
});
