import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { newestSdks } from "../helpers/newest-sdks";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// @google/genai 2 (the project's) and 3 (installed apart: it declares Node 22).
const genaiMajors = [GoogleGenAI, (await newestSdks()).genai.GoogleGenAI];

// The start-up block is what a newcomer copies first: each SDK's base URL, read from the
// block the server printed, answers through that SDK. A base URL with the version the SDK
// adds itself answers a 404 in that SDK's format that names the base URL to set.

let gateway: Gateway;
let key: string;
let urls: { openai: string; anthropic: string; gemini: string };
let origin: string;

before(async () => {
  gateway = await startGateway();
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "banner" })).body.key;
  const block = gateway.output();
  const read = (sdk: string) => {
    const match = new RegExp(`${sdk} SDK: +base URL (http://\\S+)`).exec(block);
    assert.ok(match, `the block names ${sdk} SDK's base URL:\n${block}`);
    return match[1]!;
  };
  urls = { openai: read("OpenAI"), anthropic: read("Anthropic"), gemini: read("Gemini") };
  origin = new URL(urls.anthropic).origin;
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

describe("the base URLs the start-up block prints work in each SDK", () => {
  test("OpenAI SDK", async () => {
    const client = new OpenAI({ baseURL: urls.openai, apiKey: key, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "hi" }] });
    assert.ok(reply.choices[0]!.message.content);
  });

  test("Anthropic SDK", async () => {
    const client = new Anthropic({ baseURL: urls.anthropic, apiKey: key, maxRetries: 0 });
    const reply = await client.messages.create({ model: "mock-chat", max_tokens: 20, messages: [{ role: "user", content: "hi" }] });
    assert.equal(reply.content[0]!.type, "text");
  });

  test("Gemini SDK, both majors", async () => {
    for (const GenAI of genaiMajors) {
      const client = new GenAI({ apiKey: key, httpOptions: { baseUrl: urls.gemini } });
      const reply = await client.models.generateContent({ model: "mock-chat", contents: "hi" });
      assert.ok(reply.text);
    }
  });
});

describe("a base URL with the version the SDK adds itself: a 404 in its format naming the right base URL", () => {
  test("Anthropic SDK given /v1", async () => {
    const client = new Anthropic({ baseURL: `${origin}/v1`, apiKey: key, maxRetries: 0 });
    const error = await rejection(client.messages.create({ model: "mock-chat", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }));
    assert.ok(error instanceof Anthropic.NotFoundError, String(error));
    const body = error.error as any;
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "not_found_error");
    assert.match(body.error.message, new RegExp(`set its base URL to ${origin} \\(without /v1\\)`));
  });

  test("Gemini SDK given /v1beta, both majors", async () => {
    for (const GenAI of genaiMajors) {
      const client = new GenAI({ apiKey: key, httpOptions: { baseUrl: `${origin}/v1beta` } });
      const error = await rejection(client.models.generateContent({ model: "mock-chat", contents: "hi" }));
      assert.equal(error.status, 404, String(error));
      const body = JSON.parse(error.message.slice(error.message.indexOf("{")));
      assert.equal(body.error.status, "NOT_FOUND");
      assert.match(body.error.message, new RegExp(`set its base URL to ${origin} \\(without /v1beta\\)`));
    }
  });

  test("OpenAI SDK given /v1/v1", async () => {
    const client = new OpenAI({ baseURL: `${origin}/v1/v1`, apiKey: key, maxRetries: 0 });
    const error = await rejection(client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "hi" }] }));
    assert.ok(error instanceof OpenAI.NotFoundError, String(error));
    assert.equal(error.code, "doubled_base_path");
    assert.match(error.message, new RegExp(`set it to ${origin}/v1\\.`));
  });
});
