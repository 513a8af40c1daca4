import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { signIn } from "../helpers/console-sign-in";
import { eventually } from "../helpers/eventually";
import { startFakeServer, type FakeServer } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The Playground's recorded upstream exchange goes through the same scrubbing as answers and
// logs: an upstream that quotes the key it was sent never puts it on a screen, and a user who
// is not an administrator sees the channel's name, never its address (issue 29, item 4).

const ADMIN = { email: "capture-admin@example.com", password: "admin-password-123" };
const USER = { email: "capture-user@example.com", password: "user-password-123" };
// No well-known prefix: only the channel's own key can tell it is one.
const KEYS = ["Qx7Lm2Pz9Wv4Rt8Ks3Nb6Hd", "Jc5Fy1Tg8Ue3Vo6Ia9Mr2Sl"];

let gateway: Gateway;
let upstream: FakeServer;

before(async () => {
  // Quotes whatever key it was sent in its error; names its own address in a header either way.
  upstream = await startFakeServer((request, response) => {
    const sent = String(request.headers.authorization ?? "").replace(/^Bearer /, "");
    const model = String(request.body?.model ?? "");
    response.writeHead(model === "quoting-error" ? 400 : 200, { "content-type": "application/json", "x-upstream-host": `internal at ${upstream.origin}`, "x-echo": sent });
    if (model === "quoting-error") {
      response.end(
        JSON.stringify({ error: { message: `The key ${sent} may not send this request to ${upstream.origin}`, type: "invalid_request_error", param: null, code: null } }),
      );
      return;
    }
    response.end(
      JSON.stringify({
        id: "chatcmpl-capture",
        object: "chat.completion",
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: "fine", refusal: null }, logprobs: null, finish_reason: "stop" }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        system_fingerprint: "fp_capture",
      }),
    );
  });
  gateway = await startGateway({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
  for (const key of KEYS) gateway.secrets.add(key);
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "internal-pool",
    type: "openai",
    baseUrl: `${upstream.origin}/v1`,
    apiKeys: KEYS,
    models: ["quoting-error", "quoting-ok"],
  });
  assert.equal(channel.status, 201, JSON.stringify(channel.body));
  assert.equal((await gateway.admin("POST", "/api/admin/users", USER)).status, 201);
});

after(async () => {
  await gateway?.stop();
  await upstream?.close();
});

async function playgroundChat(cookie: string, model: string): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { cookie, origin: gateway.url, "content-type": "application/json", "x-gateway-console": "1", "x-gateway-capture": "1" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });
  const text = await response.text();
  for (const key of KEYS) assert.ok(!text.includes(key), "the answer itself is scrubbed");
  return response.headers.get("x-request-id")!;
}

async function capture(cookie: string, id: string): Promise<string> {
  let text = "";
  await eventually(async () => {
    const response = await fetch(`${gateway.url}/api/console/captures/${id}`, { headers: { cookie } });
    text = await response.text();
    assert.equal(response.status, 200, text);
  });
  return text;
}

describe("a Playground capture", () => {
  for (const model of ["quoting-error", "quoting-ok"]) {
    test(`holds no upstream key, and no channel address for a user (${model})`, async () => {
      const user = (await signIn(gateway.url, USER.email, USER.password))!;
      assert.ok(user, "the user signs in");
      const text = await capture(user, await playgroundChat(user, model));
      for (const key of KEYS) assert.ok(!text.includes(key), `no key in the user's capture: ${text}`);
      const host = new URL(upstream.origin).host;
      assert.ok(!text.includes(host), `no upstream address in the user's capture: ${text}`);
      const exchanges = (JSON.parse(text) as { exchanges: { channel?: string; request: { url: string; headers: Record<string, string> } }[] }).exchanges;
      assert.ok(exchanges.length >= 1);
      for (const exchange of exchanges) {
        assert.equal(exchange.channel, "internal-pool", "the channel by name");
        assert.deepEqual(
          Object.keys(exchange.request.headers).filter((name) => name !== "content-type"),
          [],
          "no request headers",
        );
      }
    });
  }

  test("an administrator sees the address, never the key", async () => {
    const admin = (await signIn(gateway.url, ADMIN.email, ADMIN.password))!;
    assert.ok(admin, "the admin signs in");
    const text = await capture(admin, await playgroundChat(admin, "quoting-error"));
    for (const key of KEYS) assert.ok(!text.includes(key), `no key in the admin's capture: ${text}`);
    assert.ok(text.includes(new URL(upstream.origin).host), "the address is shown to an administrator");
  });
});
