import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { eventually } from "../helpers/eventually";
import { BEDROCK_CREDENTIALS, BEDROCK_REGION } from "../helpers/fake-bedrock-upstream";
import { VERTEX_LOCATION, VERTEX_PROJECT } from "../helpers/fake-vertex-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A cloud channel saved with a key of the wrong shape says, where the admin reads it, what
// the field expects with an example: no validator text, and never the key.

let gateway: Gateway;
let client: OpenAI;

before(async () => {
  gateway = await startGateway({ ROUTING_BACKOFF_MS: "0" });
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "cloud keys" })).body.key;
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
});
after(async () => {
  await gateway?.stop();
});

/**
 * Saves a channel with `apiKey`, calls it once, and returns what the admin reads: why the
 * channel was taken out of rotation, or the caller's 502 that blames the channel.
 */
async function reasonFor(type: "vertex" | "bedrock", name: string, apiKey: string, settings: Record<string, string>): Promise<string> {
  // Loopback: the key is refused before any request is sent.
  const created = await gateway.admin("POST", "/api/admin/channels", { name, type, baseUrl: "http://127.0.0.1:9", apiKey, settings, models: [name] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const failed = await client.chat.completions
    .create({ model: name, messages: [{ role: "user", content: "hi" }] })
    .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
  assert.ok(failed instanceof OpenAI.APIError, "the call fails");
  if (/channel's key/.test(failed.message)) return failed.message;
  let reason = "";
  await eventually(async () => {
    reason = String((await gateway.admin("GET", `/api/admin/channels/${created.body.id}`)).body.autoDisabledReason ?? "");
    assert.ok(reason, "the channel says why it was taken out");
  });
  return reason;
}

test("Vertex: a key that is not JSON, and JSON that is not a service account, say what the field takes, without validator text", async () => {
  const settings = { project: VERTEX_PROJECT, location: VERTEX_LOCATION };
  const notJson = await reasonFor("vertex", "vx-not-json", "AIzaSyNotAServiceAccountKey0123456789", settings);
  assert.match(notJson, /The channel's key is not JSON\. A Vertex channel takes a service-account key, the whole JSON file/);
  assert.match(notJson, /"type": "service_account"/);
  assert.doesNotMatch(notJson, /Invalid input|expected object|received undefined/);
  assert.doesNotMatch(notJson, /AIzaSy/);
  const oauthClient = await reasonFor("vertex", "vx-authorized-user", '{"type": "authorized_user", "client_id": "x", "client_secret": "hunter2-hunter2"}', settings);
  assert.match(oauthClient, /is a "authorized_user" key, not a service-account key/);
  assert.doesNotMatch(oauthClient, /Invalid input|hunter2/);
});

test("Bedrock: a key that opens like JSON but is not valid JSON is said to be broken JSON, with an example", async () => {
  const settings = { region: BEDROCK_REGION };
  const broken = `{accessKeyId: "${BEDROCK_CREDENTIALS.accessKeyId}", secretAccessKey: "${BEDROCK_CREDENTIALS.secretAccessKey}"}`;
  const reason = await reasonFor("bedrock", "bedrock-broken-json", broken, settings);
  assert.match(reason, /starts with \{ but is not valid JSON/);
  assert.match(reason, /\{"accessKeyId": "AKIA\.\.\.", "secretAccessKey": "\.\.\."\}/);
  assert.doesNotMatch(reason, /is JSON but/);
  assert.doesNotMatch(reason, new RegExp(BEDROCK_CREDENTIALS.secretAccessKey.slice(0, 12)));
  const wrongFields = await reasonFor("bedrock", "bedrock-wrong-fields", '{"accessKeyId": "AKIA0000", "secret": "hunter2-hunter2"}', settings);
  assert.match(wrongFields, /is JSON but not AWS credentials: it has no "secretAccessKey"/);
  assert.doesNotMatch(wrongFields, /hunter2/);
});
