import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { signIn } from "../helpers/console-sign-in";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The audit log (issue 34): every change through the admin API writes exactly one row with
// the fields it changed as [before, after], secrets as "[redacted]"; sign-ins and refused
// sign-ins are rows too; the log reads newest first, a keyset page at a time, by actor,
// target and action.

const ADMIN = { email: "auditor@example.com", password: "audit-password-123" };
let gateway: Gateway;

interface Row {
  id: string;
  at: string;
  actor: { kind: string; id: string; email?: string };
  action: string;
  target: { kind: string; id: string; name: string | null };
  changes: Record<string, [unknown, unknown]>;
  ip: string | null;
}

before(async () => {
  gateway = await startGateway({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password });
});
after(async () => {
  await gateway?.stop();
});

async function audit(query = ""): Promise<{ data: Row[]; next_cursor: string | null }> {
  const answer = await gateway.admin("GET", `/api/admin/audit${query}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Runs one admin change and returns the one audit row it wrote (failing if it wrote none or several). */
async function oneRow(change: () => Promise<{ status: number; body: unknown }>): Promise<Row> {
  const newest = (await audit("?limit=1")).data[0]?.id;
  const result = await change();
  assert.ok(result.status < 300, JSON.stringify(result.body));
  const rows = (await audit("?limit=10")).data;
  const fresh = newest
    ? rows.slice(
        0,
        rows.findIndex((row) => row.id === newest),
      )
    : rows;
  assert.equal(fresh.length, 1, `one row per change, got ${fresh.map((row) => row.action).join(", ")}`);
  return fresh[0]!;
}

describe("the audit log", () => {
  test("channels: create, update and delete, each one row with its diff, keys redacted", async () => {
    const key = "sk-audit-channel-key-0123456789";
    const rotated = "sk-audit-rotated-key-9876543210";
    gateway.secrets.add(key);
    gateway.secrets.add(rotated);
    let id = "";
    const created = await oneRow(async () => {
      const answer = await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "audited", baseUrl: "https://api.example.com/v1", apiKey: key, models: ["a"] });
      id = answer.body.id;
      return answer;
    });
    assert.equal(created.action, "channel.create");
    assert.deepEqual(created.actor, { kind: "admin_key", id: "admin_key" });
    assert.deepEqual(created.target, { kind: "channel", id, name: "audited" });
    assert.deepEqual(created.changes.name, [null, "audited"]);
    assert.deepEqual(created.changes.models, [null, ["a"]]);
    assert.deepEqual(created.changes.apiKey, [null, "[redacted]"]);
    assert.ok(created.ip, "the caller's address");

    const updated = await oneRow(() => gateway.admin("PATCH", `/api/admin/channels/${id}`, { priority: 5, apiKey: rotated, name: "audited" }));
    assert.equal(updated.action, "channel.update");
    assert.deepEqual(updated.changes, { priority: [0, 5], apiKey: ["[redacted]", "[redacted]"] }, "only what changed: the unchanged name is left out");

    const deleted = await oneRow(() => gateway.admin("DELETE", `/api/admin/channels/${id}`));
    assert.equal(deleted.action, "channel.delete");
    assert.deepEqual(deleted.changes.name, ["audited", null]);
    assert.deepEqual(deleted.changes.priority, [5, null]);

    const everything = JSON.stringify((await audit("?limit=500")).data);
    assert.ok(!everything.includes(key) && !everything.includes(rotated), "no key in the log");
  });

  test("tokens, models, users and webhooks: one row each, no token, password or secret", async () => {
    let tokenId = "";
    let tokenKey = "";
    const token = await oneRow(async () => {
      const answer = await gateway.admin("POST", "/api/admin/tokens", { name: "audited token", rpm: 10 });
      tokenId = answer.body.id;
      tokenKey = answer.body.key;
      return answer;
    });
    gateway.secrets.add(tokenKey);
    assert.equal(token.action, "token.create");
    assert.deepEqual(token.changes.rpm, [null, 10]);
    assert.deepEqual((await oneRow(() => gateway.admin("PATCH", `/api/admin/tokens/${tokenId}`, { rpm: 20 }))).changes, { rpm: [10, 20] });
    assert.equal((await oneRow(() => gateway.admin("DELETE", `/api/admin/tokens/${tokenId}`))).action, "token.delete");

    let modelId = "";
    const model = await oneRow(async () => {
      const answer = await gateway.admin("POST", "/api/admin/models", { name: "mock-chat", strategy: "weighted" });
      modelId = answer.body.id;
      return answer;
    });
    assert.equal(model.action, "model.create");
    assert.deepEqual((await oneRow(() => gateway.admin("PATCH", `/api/admin/models/${modelId}`, { strategy: "latency" }))).changes, { strategy: ["weighted", "latency"] });
    assert.equal((await oneRow(() => gateway.admin("DELETE", `/api/admin/models/${modelId}`))).action, "model.delete");

    const password = "a-new-user-password-1";
    gateway.secrets.add(password);
    let userId = "";
    const user = await oneRow(async () => {
      const answer = await gateway.admin("POST", "/api/admin/users", { email: "audited@example.com", password, role: "user" });
      userId = answer.body.id;
      return answer;
    });
    assert.deepEqual(user.changes.password, [null, "[redacted]"]);
    assert.deepEqual(user.changes.email, [null, "audited@example.com"]);
    const role = await oneRow(() => gateway.admin("PATCH", `/api/admin/users/${userId}`, { role: "admin", password: "another-password-2" }));
    gateway.secrets.add("another-password-2");
    assert.deepEqual(role.changes, { role: ["user", "admin"], password: ["[redacted]", "[redacted]"] });
    assert.equal((await oneRow(() => gateway.admin("DELETE", `/api/admin/users/${userId}`))).action, "user.delete");

    let hook = { id: "", secret: "" };
    const webhook = await oneRow(async () => {
      const answer = await gateway.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/audit", events: ["channel.disabled"] });
      hook = answer.body;
      return answer;
    });
    gateway.secrets.add(hook.secret);
    assert.deepEqual(webhook.changes.secret, [null, "[redacted]"]);
    assert.deepEqual((await oneRow(() => gateway.admin("PATCH", `/api/admin/webhooks/${hook.id}`, { enabled: false }))).changes, { enabled: [true, false] });
    assert.equal((await oneRow(() => gateway.admin("DELETE", `/api/admin/webhooks/${hook.id}`))).action, "webhook.delete");

    const everything = JSON.stringify((await audit("?limit=500")).data);
    for (const secret of [tokenKey, password, "another-password-2", hook.secret]) assert.ok(!everything.includes(secret), "no secret in the log");
  });

  test("teams and their members: each change one row, as [before, after]", async () => {
    const member = await gateway.admin("POST", "/api/admin/users", { email: "member@example.com", password: "member-password-1", role: "user" });
    gateway.secrets.add("member-password-1");
    let teamId = "";
    const created = await oneRow(async () => {
      const answer = await gateway.admin("POST", "/api/admin/teams", { name: "audited team", limits: [{ window: "month", usd: 5 }] });
      teamId = answer.body.id;
      return answer;
    });
    assert.equal(created.action, "team.create");
    assert.deepEqual(created.changes.name, [null, "audited team"]);
    const renamed = await oneRow(() => gateway.admin("PATCH", `/api/admin/teams/${teamId}`, { limits: [{ window: "month", usd: 8 }] }));
    assert.deepEqual(renamed.changes, { limits: [[{ window: "month", usd: 5 }], [{ window: "month", usd: 8 }]] });
    const added = await oneRow(() => gateway.admin("POST", `/api/admin/teams/${teamId}/members`, { userId: member.body.id, role: "member" }));
    assert.equal(added.action, "team.member_add");
    assert.deepEqual(added.target, { kind: "team_member", id: `${teamId}:${member.body.id}`, name: null });
    assert.deepEqual(added.changes.role, [null, "member"]);
    const promoted = await oneRow(() => gateway.admin("PATCH", `/api/admin/teams/${teamId}/members/${member.body.id}`, { role: "admin" }));
    assert.deepEqual(promoted.changes, { role: ["member", "admin"] });
    const removed = await oneRow(() => gateway.admin("DELETE", `/api/admin/teams/${teamId}/members/${member.body.id}`));
    assert.equal(removed.action, "team.member_remove");
    assert.deepEqual(removed.changes.role, ["admin", null]);
    const deleted = await oneRow(() => gateway.admin("DELETE", `/api/admin/teams/${teamId}`));
    assert.equal(deleted.action, "team.delete");
    assert.deepEqual(deleted.changes.name, ["audited team", null]);
  });

  test("sign-ins and refused sign-ins are rows; a console session's changes name the user", async () => {
    const refused = await oneRow(async () => ({ status: (await signIn(gateway.url, ADMIN.email, "not-the-password")) === null ? 200 : 500, body: null }));
    assert.equal(refused.action, "auth.sign_in_failed");
    assert.deepEqual(refused.changes, { reason: [null, "wrong password"] });
    assert.equal(refused.actor.email, ADMIN.email);
    let session: string | null = null;
    const signedIn = await oneRow(async () => {
      session = await signIn(gateway.url, ADMIN.email, ADMIN.password);
      return { status: session ? 200 : 500, body: null };
    });
    assert.equal(signedIn.action, "auth.sign_in");
    const admin = signedIn.actor.id;

    const viaConsole = await oneRow(async () => {
      const response = await fetch(`${gateway.url}/api/admin/tokens`, {
        method: "POST",
        headers: { cookie: session!, "content-type": "application/json" },
        body: JSON.stringify({ name: "from the console" }),
      });
      const body = await response.json();
      gateway.secrets.add(body.key);
      return { status: response.status, body };
    });
    assert.deepEqual(viaConsole.actor, { kind: "user", id: admin, email: ADMIN.email });
  });

  test("reads newest first by keyset pages, filtered by actor, target and action", async () => {
    const all = (await audit("?limit=500")).data;
    assert.ok(all.length >= 15);
    for (let index = 1; index < all.length; index += 1) assert.ok(all[index - 1]!.at >= all[index]!.at, "newest first");
    const seen: string[] = [];
    let cursor: string | null = "";
    while (cursor !== null) {
      const page: { data: Row[]; next_cursor: string | null } = await audit(`?limit=4${cursor ? `&cursor=${cursor}` : ""}`);
      assert.ok(page.data.length <= 4);
      seen.push(...page.data.map((row) => row.id));
      cursor = page.next_cursor;
    }
    assert.deepEqual(
      seen,
      all.map((row) => row.id),
      "the pages cover the log once, in order",
    );

    const updates = (await audit("?action=channel.update")).data;
    assert.ok(updates.length >= 1 && updates.every((row) => row.action === "channel.update"));
    const target = updates[0]!.target;
    const byTarget = (await audit(`?target=channel:${target.id}`)).data;
    assert.deepEqual(
      byTarget.map((row) => row.action),
      ["channel.delete", "channel.update", "channel.create"],
    );
    const byActor = (await audit("?actor=admin_key&limit=500")).data;
    assert.ok(byActor.length > 0 && byActor.every((row) => row.actor.id === "admin_key"));

    for (const bad of ["?limit=501", "?limit=0", "?cursor=nonsense", "?target=nocolon"]) {
      assert.equal((await gateway.admin("GET", `/api/admin/audit${bad}`)).status, 400, bad);
    }
  });
});
