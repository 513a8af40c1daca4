import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// The usual ways a right key is sent wrong get a 401 that names the slip, in the caller's
// own error shape, never a generic "Incorrect API key" and never the key itself.

let gateway: Gateway;
let key: string;

before(async () => {
  gateway = await startGateway();
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "slips" })).body.key;
  gateway.secrets.add(key);
});
after(async () => {
  await gateway?.stop();
});

async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => assert.fail("expected an error"),
    (error: unknown) => error,
  );
}

const chat = { model: "mock-chat", messages: [{ role: "user" as const, content: "hi" }] };
const message = { ...chat, max_tokens: 20 };

async function post(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

/** The message of a Gemini SDK error, read from the JSON body it quotes. */
const geminiBody = (error: any) => JSON.parse(error.message.slice(error.message.indexOf("{"))).error;

describe("Bearer in a key header", () => {
  test("x-api-key: Bearer sk-...", async () => {
    const reply = await post("/v1/messages", { "x-api-key": `Bearer ${key}`, "anthropic-version": "2023-06-01" }, message);
    assert.equal(reply.status, 401);
    assert.equal(reply.body.error.type, "authentication_error");
    assert.match(reply.body.error.message, /drop the word Bearer in x-api-key/);
    assert.doesNotMatch(reply.body.error.message, new RegExp(key));
  });

  test("an SDK given 'Bearer ' + key sends Bearer twice (Anthropic SDK)", async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: `Bearer ${key}`, maxRetries: 0 });
    const error = await rejection(client.messages.create(message));
    assert.ok(error instanceof Anthropic.AuthenticationError, String(error));
    assert.equal((error.error as any).error.type, "authentication_error");
    assert.match(error.message, /Bearer Bearer.*the SDK adds the word Bearer itself/);
    assert.doesNotMatch(error.message, new RegExp(key));
  });

  test("x-goog-api-key: Bearer sk-... (Gemini SDK)", async () => {
    const client = new GoogleGenAI({ apiKey: `Bearer ${key}`, httpOptions: { baseUrl: gateway.url } });
    const error = await rejection(client.models.generateContent({ model: "mock-chat", contents: "hi" }));
    assert.equal(error.status, 401);
    const body = geminiBody(error);
    assert.equal(body.status, "UNAUTHENTICATED");
    assert.match(body.message, /drop the word Bearer in x-goog-api-key/);
  });
});

describe("a key in Authorization without Bearer", () => {
  test("OpenAI format", async () => {
    const reply = await post("/v1/chat/completions", { authorization: key }, chat);
    assert.equal(reply.status, 401);
    assert.equal(reply.body.error.code, "invalid_api_key");
    assert.match(reply.body.error.message, /without the word Bearer: send Authorization: Bearer YOUR_KEY/);
    assert.doesNotMatch(reply.body.error.message, new RegExp(key));
  });

  test("Anthropic format", async () => {
    const reply = await post("/v1/messages", { authorization: key, "anthropic-version": "2023-06-01" }, message);
    assert.equal(reply.status, 401);
    assert.equal(reply.body.type, "error");
    assert.equal(reply.body.error.type, "authentication_error");
    assert.match(reply.body.error.message, /without the word Bearer/);
  });

  test("the key does answer once Bearer is there", async () => {
    assert.equal((await post("/v1/chat/completions", { authorization: `Bearer ${key}` }, chat)).status, 200);
  });
});

describe("the admin API key used as an API token", () => {
  const adminSlip = /this is the admin API key.*create a token/i;

  test("OpenAI SDK", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.adminKey, maxRetries: 0 });
    const error = await rejection(client.chat.completions.create(chat));
    assert.ok(error instanceof OpenAI.AuthenticationError, String(error));
    assert.equal(error.code, "invalid_api_key");
    assert.match(error.message, adminSlip);
    assert.doesNotMatch(error.message, new RegExp(gateway.adminKey));
  });

  test("Anthropic SDK", async () => {
    const client = new Anthropic({ baseURL: gateway.url, apiKey: gateway.adminKey, maxRetries: 0 });
    const error = await rejection(client.messages.create(message));
    assert.ok(error instanceof Anthropic.AuthenticationError, String(error));
    assert.match(error.message, adminSlip);
  });

  test("Gemini SDK", async () => {
    const client = new GoogleGenAI({ apiKey: gateway.adminKey, httpOptions: { baseUrl: gateway.url } });
    const error = await rejection(client.models.generateContent({ model: "mock-chat", contents: "hi" }));
    assert.equal(error.status, 401);
    const body = geminiBody(error);
    assert.equal(body.status, "UNAUTHENTICATED");
    assert.match(body.message, adminSlip);
  });

  test("a wrong key is still just a wrong key", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "sk-not-a-real-key", maxRetries: 0 });
    const error = await rejection(client.chat.completions.create(chat));
    assert.ok(error instanceof OpenAI.AuthenticationError);
    assert.match(error.message, /Incorrect API key provided/);
  });
});
