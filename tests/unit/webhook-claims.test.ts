import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import type { Database } from "@/lib/db/client";
import { heldAtWrite } from "../helpers/held-database";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

// Two processes sending webhook deliveries from one database: a process whose read of the
// due rows went stale while another sent one (and its retry is not due yet) must not send
// it again, nor write back an attempt count that misses one. (A loaded CI run saw a third
// delivery sent early and recorded as the second.)

process.env.FETCH_ALLOWED_HOSTS = "127.0.0.1";
const { createDatabase } = await import("@/lib/db/client");
const { migrateSqlite } = await import("@/lib/db/migrate");
const { Webhooks } = await import("@/lib/webhooks/webhooks");
const { MemorySharedState } = await import("@/lib/state/memory-shared-state");

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-webhooks-"));
let database: Database;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
before(async () => {
  const file = path.join(directory, "test.db");
  migrateSqlite(file);
  database = await createDatabase({ kind: "sqlite", file });
  receiver = await startWebhookReceiver();
});
after(async () => {
  await database?.$disconnect();
  await receiver?.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

test("a process whose read went stale while another sent the delivery does not send it again", async () => {
  const hook = await database.webhook.create({ data: { url: receiver.url, events: ["channel.disabled"] } });
  const payload = JSON.stringify({ id: "evt_stale", event: "channel.disabled", at: new Date().toISOString(), text: "t", subject: { kind: "channel", id: "c", name: "c" } });
  // The first attempt failed a while ago; the first retry is due.
  const row = await database.webhookDelivery.create({
    data: { webhookId: hook.id, eventId: "evt_stale", event: "channel.disabled", payload, attempts: 1, nextAttemptAt: new Date(Date.now() - 1000) },
  });
  const options = { retryBaseMs: 60_000, onError: (error: unknown) => assert.fail(String(error)) };
  const keys = [randomBytes(32)];
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached = () => {};
  const atClaim = new Promise<void>((resolve) => (reached = resolve));
  const stale = new Webhooks(heldAtWrite(database, "webhookDelivery", gate, reached), new MemorySharedState(), keys, options);
  const other = new Webhooks(database, new MemorySharedState(), keys, options);

  const staleRun = stale.deliverDue();
  await atClaim; // it has read the row (one attempt, due) and waits to claim it
  receiver.state.failures = 1;
  await other.deliverDue(); // the other process sends the retry, which fails: the next is 2 minutes away
  release();
  await staleRun;

  assert.equal(receiver.received.filter((entry) => entry.body.id === "evt_stale").length, 1, "one delivery, not a second one at once");
  const stored = await database.webhookDelivery.findUniqueOrThrow({ where: { id: row.id } });
  assert.equal(stored.attempts, 2);
  assert.equal(stored.status, "pending");
  assert.ok(stored.nextAttemptAt.getTime() > Date.now() + 60_000, "the next retry as the failed one set it");
});
