import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A fallback names a model some channel serves: a typo (`mock-chta`) saved as a fallback
// would never answer, so the admin API refuses it with the nearest names, as the API's
// unknown-model 404 does, and keeps nothing.

let gateway: Gateway;

before(async () => {
  gateway = await startGateway();
  const channel = { name: "second mock", type: "mock", models: ["mock-backup"] };
  assert.equal((await gateway.admin("POST", "/api/admin/channels", channel)).status, 201);
});
after(async () => {
  await gateway?.stop();
});

const record = async (name: string) =>
  ((await gateway.admin("GET", "/api/admin/models")).body.data as { name: string; id: string | null; fallbacks: string[] }[]).find((model) => model.name === name);

test("a new record whose fallback nothing serves: 400 naming the nearest model, nothing saved", async () => {
  const refused = await gateway.admin("POST", "/api/admin/models", { name: "mock-backup", fallbacks: ["mock-chta"] });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, "unknown_fallback");
  assert.equal(refused.body.error.param, "fallbacks");
  assert.match(refused.body.error.message, /No channel serves the model 'mock-chta', so it cannot be a fallback\. Did you mean 'mock-chat'\?/);
  assert.match(refused.body.error.message, /Models channels serve: .*mock-backup/);
  assert.equal((await record("mock-backup"))?.id, null);
});

test("a change to an existing record is refused the same way, and the record keeps its fallbacks", async () => {
  const created = await gateway.admin("POST", "/api/admin/models", { name: "mock-backup", fallbacks: ["mock-chat"] });
  assert.equal(created.status, 201);
  const refused = await gateway.admin("PATCH", `/api/admin/models/${created.body.id}`, { fallbacks: ["mock-chat", "nothing-like-it-at-all"] });
  assert.equal(refused.status, 400);
  assert.match(refused.body.error.message, /No channel serves the model 'nothing-like-it-at-all', so it cannot be a fallback\. Models channels serve/);
  assert.deepEqual((await record("mock-backup"))?.fallbacks, ["mock-chat"]);
  // Other changes to the record still save.
  assert.equal((await gateway.admin("PATCH", `/api/admin/models/${created.body.id}`, { strategy: "latency" })).status, 200);
});
