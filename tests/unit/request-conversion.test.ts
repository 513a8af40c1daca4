import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ChatRequest } from "@/lib/canonical/request";
import { parseMessagesRequest } from "@/lib/formats/anthropic/parse-request";
import { parseGenerateContentRequest } from "@/lib/formats/gemini/parse-request";
import { parseResponsesBody } from "@/lib/formats/responses/parse-request";
import { parseChatCompletionRequest } from "@/lib/formats/openai/parse-request";
import { toAnthropicBody } from "@/lib/providers/anthropic/convert-request";
import { toGeminiBody } from "@/lib/providers/gemini/convert-request";
import { toOpenAIChatBody } from "@/lib/providers/openai/convert-request";
import type { AttemptContext } from "@/lib/providers/provider";

const base: ChatRequest = { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], stream: false };
const geminiContext = (warnings: string[] = []) => ({ warnings }) as unknown as AttemptContext;

describe("canonical -> Anthropic", () => {
  test("max_tokens gets a default, and is clamped to the model's limit with a warning", () => {
    assert.equal(toAnthropicBody(base, "claude-sonnet-4-5", 8192, []).max_tokens, 8192);
    const warnings: string[] = [];
    assert.equal(toAnthropicBody({ ...base, maxTokens: 100_000 }, "claude-3-5-haiku-latest", 8192, warnings).max_tokens, 8192);
    assert.match(warnings[0]!, /clamped to 8192/);
    assert.equal(toAnthropicBody(base, "claude-3-haiku-20240307", 8192, []).max_tokens, 4096, "the default is clamped too");
  });

  test("temperature above 1 is clamped with a warning; thinking drops it", () => {
    const warnings: string[] = [];
    assert.equal(toAnthropicBody({ ...base, temperature: 1.6 }, "c", 1000, warnings).temperature, 1);
    assert.equal(warnings.length, 1);
    const thinking = toAnthropicBody({ ...base, temperature: 0.3, reasoning: { effort: "high" } }, "c", 1000, []);
    assert.equal(thinking.temperature, undefined);
    assert.deepEqual(thinking.thinking, { type: "enabled", budget_tokens: 4096 });
    assert.ok((thinking.max_tokens as number) > 4096, "max_tokens exceeds the thinking budget");
  });

  test("reasoning effort maps to a thinking budget; forced tool choice becomes auto under thinking", () => {
    const warnings: string[] = [];
    const body = toAnthropicBody(
      { ...base, reasoning: { effort: "low" }, tools: [{ name: "f" }], toolChoice: { type: "required" }, parallelToolCalls: false },
      "c",
      8192,
      warnings,
    );
    assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: 1024 });
    assert.deepEqual(body.tool_choice, { type: "auto", disable_parallel_tool_use: true });
    assert.deepEqual(body.tools, [{ name: "f", input_schema: { type: "object", properties: {} } }]);
    assert.match(warnings.join(), /downgraded to auto/);
  });

  test("no empty text blocks; assistant-first history gets a user turn; tool results lead their turn", () => {
    const body = toAnthropicBody(
      {
        ...base,
        messages: [
          {
            role: "assistant",
            content: [
              { type: "text", text: "" },
              { type: "tool-call", id: "c:1", name: "f", arguments: "not json" },
            ],
          },
          { role: "user", content: [{ type: "text", text: "and?" }] },
          { role: "tool", content: [{ type: "tool-result", toolCallId: "c:1", content: "ok", isError: true }] },
        ],
      },
      "c",
      100,
      [],
    );
    assert.deepEqual(body.messages, [
      { role: "user", content: [{ type: "text", text: "..." }] },
      { role: "assistant", content: [{ type: "tool_use", id: "c_1", name: "f", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c_1", content: "ok", is_error: true },
          { type: "text", text: "and?" },
        ],
      },
    ]);
  });
});

describe("canonical -> Gemini", () => {
  test("schemas lose JSON-Schema extras; empty object parameters are omitted", async () => {
    const body = await toGeminiBody(
      {
        ...base,
        tools: [
          { name: "a", parameters: { $schema: "x", type: "object", additionalProperties: false, properties: { n: { type: ["string", "null"], default: "q" } } } },
          { name: "b", parameters: { type: "object", properties: {} } },
        ],
        toolChoice: { type: "tool", name: "a" },
      },
      geminiContext(),
    );
    assert.deepEqual(body.tools, [{ functionDeclarations: [{ name: "a", parameters: { type: "object", properties: { n: { type: "string", nullable: true } } } }, { name: "b" }] }]);
    assert.deepEqual(body.toolConfig, { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["a"] } });
  });

  test("stop sequences are cut to five with a warning; reasoning sets a thinking budget", async () => {
    const warnings: string[] = [];
    const body = await toGeminiBody({ ...base, stop: ["1", "2", "3", "4", "5", "6"], reasoning: { budgetTokens: 3000 } }, geminiContext(warnings));
    assert.deepEqual(body.generationConfig, { stopSequences: ["1", "2", "3", "4", "5"], thinkingConfig: { thinkingBudget: 3000, includeThoughts: true } });
    assert.equal(warnings.length, 1);
  });
});

describe("canonical -> OpenAI", () => {
  test("always asks for stream usage; reasoning uses max_completion_tokens; top_k dropped with a warning", () => {
    const warnings: string[] = [];
    const body = toOpenAIChatBody({ ...base, stream: true, maxTokens: 50, topK: 3, reasoning: { budgetTokens: 5000 } }, "up", warnings);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.max_completion_tokens, 50);
    assert.equal(body.reasoning_effort, "medium");
    assert.equal(body.top_k, undefined);
    assert.match(warnings[0]!, /top_k/);
  });
});

describe("client formats -> canonical", () => {
  test("Anthropic: a system message inside messages joins the system prompt; tool results split out", () => {
    const { chat } = parseMessagesRequest({
      model: "m",
      max_tokens: 10,
      system: [{ type: "text", text: "one" }],
      messages: [
        { role: "system", content: "two" },
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "sig" },
            { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "r" }] },
            { type: "text", text: "next" },
          ],
        },
      ],
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    assert.equal(chat.system, "one\n\ntwo");
    assert.deepEqual(chat.reasoning, { budgetTokens: 2048 });
    assert.deepEqual(chat.messages[1]!.content, [
      { type: "reasoning", text: "t", signature: "sig" },
      { type: "tool-call", id: "toolu_1", name: "f", arguments: '{"a":1}' },
    ]);
    assert.deepEqual(chat.messages[2], { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_1", content: "r", isError: undefined }] });
    assert.deepEqual(chat.messages[3], { role: "user", content: [{ type: "text", text: "next" }] });
  });

  test("Anthropic: temperature above 1 and a missing max_tokens are 400s", () => {
    assert.throws(() => parseMessagesRequest({ model: "m", max_tokens: 5, temperature: 1.5, messages: [{ role: "user", content: "x" }] }), { param: "temperature" });
    assert.throws(() => parseMessagesRequest({ model: "m", messages: [{ role: "user", content: "x" }] }), { param: "max_tokens" });
  });

  test("Anthropic: a known block type is held to its fields, named in the 400; a newer block type passes through", () => {
    const parse = (block: Record<string, unknown>) => parseMessagesRequest({ model: "m", max_tokens: 5, messages: [{ role: "user", content: [block] }] });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ type: "text" }, "messages[0].content[0].text", /^Missing required parameter/],
      [{ type: "tool_use", name: "f", input: {} }, "messages[0].content[0].id", /^Missing required parameter/],
      [{ type: "tool_result", content: "r" }, "messages[0].content[0].tool_use_id", /^Missing required parameter/],
      [{ type: "image", source: { type: "base64", data: "x" } }, "messages[0].content[0].source.media_type", /^Missing required parameter/],
      [{ type: "thinking", thinking: 5, signature: "s" }, "messages[0].content[0].thinking", /expected string/],
      [{ text: "no type" }, "messages[0].content[0].type", /^Missing required parameter/],
    ];
    for (const [block, param, message] of cases)
      assert.throws(
        () => parse(block),
        (error: Error & { param?: string }) => error.param === param && message.test(error.message),
        JSON.stringify(block),
      );
    const newer = { type: "search_result", source: "https://example.com", title: "t", content: [{ type: "text", text: "x" }] };
    assert.deepEqual(parse(newer).body.messages[0]!.content, [newer]);
  });

  test("Responses: a known item, content or tool type is held to its fields, named in the 400; other types pass through", () => {
    const parse = (fields: Record<string, unknown>) => parseResponsesBody({ model: "m", ...fields });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ input: [{ type: "function_call", name: "f", arguments: "{}" }] }, "input[0].call_id", /^Missing required parameter/],
      [{ input: [{ type: "function_call_output", call_id: "c", output: 5 }] }, "input[0].output", /expected string/],
      [{ input: [{ type: "message", role: "user", content: [{ type: "input_text" }] }] }, "input[0].content[0].text", /^Missing required parameter/],
      [{ input: [{ role: "wizard", content: "x" }] }, "input[0].role", /Invalid option/],
      [{ input: "x", tools: [{ type: "function", parameters: {} }] }, "tools[0].name", /^Missing required parameter/],
    ];
    for (const [fields, param, message] of cases)
      assert.throws(
        () => parse(fields),
        (error: Error & { param?: string }) => error.param === param && message.test(error.message),
        JSON.stringify(fields),
      );
    const passing = {
      input: [
        { role: "user", content: "short form" },
        { type: "item_reference", id: "msg_1" },
        { type: "local_shell_call", call_id: "c", action: { type: "exec" } },
      ],
      tools: [{ type: "web_search" }, { type: "local_shell" }],
    };
    assert.deepEqual(parse(passing), { model: "m", ...passing });
  });

  test("Gemini: thinkingConfig and upper-case schemas become canonical", () => {
    const { chat } = parseGenerateContentRequest(
      {
        contents: [{ role: "user", parts: [{ text: "q" }] }],
        tools: [{ functionDeclarations: [{ name: "f", parameters: { type: "OBJECT", properties: { a: { type: "STRING", enum: ["X"] } } } }] }],
        generationConfig: { thinkingConfig: { thinkingBudget: 5000, includeThoughts: true }, maxOutputTokens: 9 },
      },
      "m",
      false,
    );
    assert.deepEqual(chat.reasoning, { budgetTokens: 5000 });
    assert.deepEqual(chat.tools![0]!.parameters, { type: "object", properties: { a: { type: "string", enum: ["X"] } } });
  });

  test("OpenAI: reasoning_effort maps to the canonical effort", () => {
    assert.deepEqual(parseChatCompletionRequest({ model: "m", messages: [{ role: "user", content: "q" }], reasoning_effort: "xhigh" }).chat.reasoning, { effort: "high" });
  });
});

describe("canonical -> Anthropic, thinking with foreign tool history", () => {
  test("thinking is turned off (with a warning) when tool calls lack signed thinking", () => {
    const warnings: string[] = [];
    const body = toAnthropicBody(
      {
        ...base,
        reasoning: { effort: "medium" },
        messages: [
          { role: "user", content: [{ type: "text", text: "q" }] },
          { role: "assistant", content: [{ type: "tool-call", id: "call_1", name: "f", arguments: "{}" }] },
          { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", content: "r" }] },
        ],
      },
      "c",
      1000,
      warnings,
    );
    assert.equal(body.thinking, undefined);
    assert.match(warnings.join(), /thinking disabled/);
    const signed = toAnthropicBody(
      {
        ...base,
        reasoning: { effort: "medium" },
        messages: [
          { role: "user", content: [{ type: "text", text: "q" }] },
          {
            role: "assistant",
            content: [
              { type: "reasoning", text: "t", signature: "s" },
              { type: "tool-call", id: "call_1", name: "f", arguments: "{}" },
            ],
          },
          { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", content: "r" }] },
        ],
      },
      "c",
      1000,
      [],
    );
    assert.deepEqual(signed.thinking, { type: "enabled", budget_tokens: 2048 });
  });
});

describe("canonical -> Anthropic, unanswered tool calls", () => {
  test("a tool_use without a result gets an error tool_result in the next user turn", () => {
    const warnings: string[] = [];
    const body = toAnthropicBody(
      {
        ...base,
        messages: [
          { role: "user", content: [{ type: "text", text: "q" }] },
          {
            role: "assistant",
            content: [
              { type: "tool-call", id: "call_1", name: "f", arguments: "{}" },
              { type: "tool-call", id: "call_2", name: "g", arguments: "{}" },
            ],
          },
          { role: "tool", content: [{ type: "tool-result", toolCallId: "call_2", content: "ok" }] },
          { role: "assistant", content: [{ type: "tool-call", id: "call_3", name: "f", arguments: "{}" }] },
        ],
      },
      "c",
      100,
      warnings,
    );
    const messages = body.messages as { role: string; content: Record<string, unknown>[] }[];
    assert.deepEqual(
      messages[2]!.content.map((block) => [block.tool_use_id, block.is_error ?? false]),
      [
        ["call_1", true],
        ["call_2", false],
      ],
    );
    assert.deepEqual(messages[4], {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "call_3", content: "No result was provided for this tool call.", is_error: true }],
    });
    assert.equal(warnings.length, 2);
  });
});
