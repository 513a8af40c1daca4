import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startGateway, type Gateway } from "../helpers/start-gateway";

let gateway: Gateway;
const ADMIN_EMAIL = "owner@example.com";
const ADMIN_PASSWORD = "correct horse battery";

before(async () => {
  gateway = await startGateway({ ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_API_KEY: "test-admin-key-0123456789" });
});
after(async () => gateway?.stop());

/** Signs in through next-auth's credentials flow and returns the session cookie. */
async function signIn(email: string, password: string): Promise<string | undefined> {
  const csrf = await fetch(`${gateway.url}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookies = csrf.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
  const response = await fetch(`${gateway.url}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookies },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .find((cookie) => cookie.includes("next-auth.session-token="));
}

describe("admin API", () => {
  test("health answers once ready", async () => {
    const response = await fetch(`${gateway.url}/api/health`);
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  test("refuses requests without the admin key or with a wrong one", async () => {
    assert.equal((await fetch(`${gateway.url}/api/admin/tokens`)).status, 401);
    const wrong = await fetch(`${gateway.url}/api/admin/tokens`, { headers: { authorization: "Bearer nope" } });
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).error.code, "invalid_api_key");
  });

  test("validates bodies with the offending field named", async () => {
    const channel = await gateway.admin("POST", "/api/admin/channels", { name: "x", type: "carrier-pigeon", models: [] });
    assert.equal(channel.status, 400);
    assert.equal(channel.body.error.param, "type");
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "x", rpm: 0 });
    assert.equal(token.status, 400);
    assert.equal(token.body.error.param, "rpm");
    const unknown = await gateway.admin("PATCH", "/api/admin/tokens/does-not-exist", { enabled: false });
    assert.equal(unknown.status, 404);
  });

  test("channel CRUD never returns the key", async () => {
    const created = await gateway.admin("POST", "/api/admin/channels", {
      name: "up",
      type: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "sk-channel-secret-123456",
      models: ["a"],
      priority: 5,
      weight: 2,
    });
    assert.equal(created.status, 201);
    const id = created.body.id;
    const patched = await gateway.admin("PATCH", `/api/admin/channels/${id}`, { enabled: false, modelMap: { a: "b" } });
    assert.equal(patched.body.enabled, false);
    assert.deepEqual(patched.body.modelMap, { a: "b" });
    const listed = await gateway.admin("GET", "/api/admin/channels");
    assert.ok(listed.body.data.some((channel: { id: string }) => channel.id === id));
    assert.equal(JSON.stringify(listed.body).includes("sk-channel-secret"), false);
    assert.equal((await gateway.admin("DELETE", `/api/admin/channels/${id}`)).status, 200);
    assert.equal((await gateway.admin("GET", `/api/admin/channels/${id}`)).status, 404);
  });

  test("a console session chatting as itself spends under the limits an admin set on the user", async () => {
    const session = await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.ok(session);
    const chat = () =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { cookie: session!, "x-gateway-console": "1", "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-chat", messages: [{ role: "user", content: "hi" }], max_tokens: 5 }),
      });
    assert.equal((await chat()).status, 200, "no limits yet");
    const users = await gateway.admin("GET", "/api/admin/users");
    const me = (users.body.data as { id: string; email: string }[]).find((user) => user.email === ADMIN_EMAIL)!;
    const limited = await gateway.admin("PATCH", `/api/admin/users/${me.id}`, { quotaTokens: 10, quotaPeriod: "daily" });
    assert.equal(limited.status, 200);
    assert.equal(limited.body.quotaTokens, 10);
    const refused = await chat();
    assert.equal(refused.status, 429);
    assert.equal((await refused.json()).error.code, "insufficient_quota");
    assert.equal((await gateway.admin("PATCH", `/api/admin/users/${me.id}`, { quotaTokens: null })).status, 200);
    assert.equal((await chat()).status, 200, "lifted at once");
  });

  test("the seeded admin signs in and the console session authorises the admin API", async () => {
    assert.equal(await signIn(ADMIN_EMAIL, "wrong password"), undefined);
    const session = await signIn(ADMIN_EMAIL, ADMIN_PASSWORD);
    assert.ok(session, "session cookie set");
    const response = await fetch(`${gateway.url}/api/admin/tokens`, {
      method: "POST",
      headers: { cookie: session!, "content-type": "application/json" },
      body: JSON.stringify({ name: "from console" }),
    });
    assert.equal(response.status, 201);
    const token = await response.json();
    assert.ok(token.userId, "owned by the signed-in admin");
  });

  test("sign-in is paused after five failures, even with the right password", async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) assert.equal(await signIn(ADMIN_EMAIL, `wrong-${attempt}`), undefined);
    assert.equal(await signIn(ADMIN_EMAIL, ADMIN_PASSWORD), undefined, "throttled");
  });
});
