import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import type { FakeServer } from "../helpers/fake-upstream-server";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Coding agents send dozens of tools with rich JSON Schemas. Gemini accepts only its own
// Schema fields (its fake here refuses any other, as the real API does), and Gemini
// clients may spell every field in snake_case.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "agent-tools.json"), "utf8")) as {
  tools: { name: string; description: string; input_schema: Record<string, unknown> }[];
};

let gateway: Gateway;
let gemini: FakeServer & { baseUrl: string };
let openai: FakeUpstream;
let key: string;

before(async () => {
  gemini = await startFakeGeminiUpstream();
  openai = await startFakeOpenAIUpstream();
  gateway = await startGateway();
  await gateway.admin("POST", "/api/admin/channels", { type: "gemini", name: "gemini", baseUrl: gemini.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] });
  await gateway.admin("POST", "/api/admin/channels", { type: "openai", name: "openai", baseUrl: openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test"] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "agents" })).body.key;
});
after(async () => {
  await gateway?.stop();
  await gemini?.close();
  await openai?.close();
});

describe("coding agents' tools on any upstream", () => {
  test("an Anthropic client (as Claude Code) with agent tool schemas reaches a Gemini channel, every schema in Gemini's own terms", async () => {
    const client = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
    const message = await client.messages.create({
      model: "gemini-test",
      max_tokens: 200,
      system: [{ type: "text", text: "You are a coding agent.", cache_control: { type: "ephemeral" } }],
      tools: fixture.tools as Anthropic.Tool[],
      messages: [{ role: "user", content: "list the files" }],
    });
    assert.equal(message.content[0]?.type, "text");
    assert.deepEqual(gemini.rejected, []);
    const declarations = gemini.received.at(-1)!.body.tools[0].functionDeclarations as { name: string; parameters: any }[];
    assert.deepEqual(
      declarations.map((declaration) => declaration.name),
      ["Bash", "TodoWrite", "Batch", "WebFetch"],
    );
    const todo = declarations[1]!.parameters.properties.todos.items;
    assert.deepEqual(todo.required, ["content", "status", "id"], "the $ref is inlined");
    assert.deepEqual(todo.properties.status.enum, ["pending", "in_progress", "completed"]);
    assert.equal(todo.properties.priority.nullable, true);
    const fetch = declarations[3]!.parameters.properties;
    assert.deepEqual(fetch.mode.enum, ["markdown"], "const becomes a one-value enum");
    assert.equal(fetch.target.anyOf.length, 2, "oneOf becomes anyOf");
  });

  test("a Gemini client's snake_case tools (parameters_json_schema) reach an OpenAI channel with their schema", async () => {
    const response = await fetch(`${gateway.url}/v1beta/models/gpt-test:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({
        system_instruction: { parts: [{ text: "Be brief." }] },
        contents: [{ role: "user", parts: [{ text: "run ls" }] }],
        generation_config: { max_output_tokens: 50 },
        tools: [
          {
            function_declarations: [
              {
                name: "run_shell",
                description: "Run a command",
                parameters_json_schema: { type: "object", properties: { shell_command: { type: "string" } }, required: ["shell_command"] },
              },
            ],
          },
        ],
      }),
    });
    assert.equal(response.status, 200, await response.clone().text());
    const sent = openai.received.at(-1)!.body as {
      tools: OpenAI.Chat.ChatCompletionTool[];
      messages: { role: string; content: unknown }[];
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    const tool = sent.tools[0] as OpenAI.Chat.ChatCompletionFunctionTool;
    assert.equal(tool.function.name, "run_shell");
    assert.deepEqual(tool.function.parameters?.required, ["shell_command"], "the schema arrives, property names untouched");
    assert.equal(sent.messages[0]!.role, "system");
    assert.equal(sent.max_completion_tokens ?? sent.max_tokens, 50);
  });
});
