import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { compactionKeys, openCompaction, sealCompaction } from "@/lib/crypto/compaction-seal";
import type { ChatResponse } from "@/lib/canonical/collect-response";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import { compactionRequest, keptUserMessages, openSealedCompactions, renderCompactedResponse, takeCompactionTrigger } from "@/lib/formats/responses/compaction";
import { parseResponsesBody, toCanonical } from "@/lib/formats/responses/parse-request";

// The gateway's compaction items: sealed under a key of their own, bound to an owner, and
// opened into a summary the upstream reads; the conversation around them as OpenAI keeps it.

const secrets = { encryptionKey: randomBytes(32), previousEncryptionKeys: [] as Buffer[] };
const keys = compactionKeys(secrets);

describe("sealing", () => {
  test("opens for its owner only, and refuses any changed byte", () => {
    const sealed = sealCompaction("Files: src/a.ts edited", "user:u1", keys);
    assert.deepEqual(openCompaction(sealed, "user:u1", keys), { summary: "Files: src/a.ts edited" });
    assert.deepEqual(openCompaction(sealed, "token:t2", keys), { refused: "other-owner" });
    const body = sealed.slice(0, -3) + (sealed.at(-3) === "A" ? "B" : "A") + sealed.slice(-2);
    assert.deepEqual(openCompaction(body, "user:u1", keys), { refused: "tampered" });
    assert.ok(!sealed.includes("src/a.ts"));
  });

  test("a key of its own: not the channel-key encryption key itself, and still read after a key rotation", () => {
    assert.notDeepEqual(keys[0], secrets.encryptionKey);
    const sealed = sealCompaction("summary", "user:u1", keys);
    const rotated = compactionKeys({ encryptionKey: randomBytes(32), previousEncryptionKeys: [secrets.encryptionKey] });
    assert.deepEqual(openCompaction(sealed, "user:u1", rotated), { summary: "summary" });
    assert.deepEqual(openCompaction(sealed, "user:u1", compactionKeys({ encryptionKey: randomBytes(32), previousEncryptionKeys: [] })), { refused: "tampered" });
  });
});

describe("the conversation around a compaction", () => {
  const input = [
    { role: "user" as const, content: "first ask" },
    { role: "assistant" as const, content: "a dropped turn" },
    { type: "function_call", call_id: "c1", name: "shell", arguments: "{}" },
    { type: "function_call_output", call_id: "c1", output: "tool text" },
    { role: "user" as const, content: [{ type: "input_text" as const, text: "second ask" }] },
  ];

  test("keeps the user messages in order, as output items", () => {
    const kept = keptUserMessages(input as never);
    assert.deepEqual(
      kept.map((item) => [item.type, item.role, item.content]),
      [
        ["message", "user", [{ type: "input_text", text: "first ask" }]],
        ["message", "user", [{ type: "input_text", text: "second ask" }]],
      ],
    );
  });

  test("a sealed item becomes a developer message with its summary; OpenAI's own items are left alone", () => {
    const sealed = sealCompaction("the summary", "token:t1", keys);
    const opened = openSealedCompactions(
      [{ type: "compaction", encrypted_content: "gAAAA-openai" }, { type: "compaction", encrypted_content: sealed }, ...input] as never,
      (value) => openCompaction(value, "token:t1", keys),
    ) as Record<string, unknown>[];
    assert.deepEqual(opened[0], { type: "compaction", encrypted_content: "gAAAA-openai" });
    assert.equal(opened[1]!.role, "developer");
    assert.match(String(opened[1]!.content), /summary of it[\s\S]*the summary$/);
    assert.equal(
      openSealedCompactions(input as never, () => assert.fail("nothing to open")),
      undefined,
    );
  });

  test("the summary request asks after the whole conversation with tools declared but not callable", () => {
    const body = parseResponsesBody({ model: "m", input, tools: [{ type: "function", name: "shell", parameters: { type: "object" } }] });
    const chat = compactionRequest(toCanonical(body).chat);
    assert.deepEqual(chat.toolChoice, { type: "none" });
    const last = chat.messages.at(-1)!;
    assert.equal(last.role, "user");
    assert.match(JSON.stringify(last.content), /Files: every file read, created, edited or deleted/);
    assert.equal(chat.messages.filter((message) => message.role === "user").length, 2, "the ask joins the last user message");
  });

  test("a trigger counts only as the last item", () => {
    assert.equal(takeCompactionTrigger([...input, { type: "compaction_trigger" }] as never).triggered, true);
    assert.equal(takeCompactionTrigger([{ type: "compaction_trigger" }, ...input] as never).triggered, false);
  });
});

describe("the compacted answer", () => {
  const answer = (text: string): ChatResponse => ({
    id: "",
    model: "m",
    created: 0,
    text,
    reasoning: "",
    toolCalls: [],
    webSearches: [],
    citations: [],
    finishReason: "stop",
    usage: { promptTokens: 50, completionTokens: 7 },
  });

  test("OpenAI's shape: the kept messages, one sealed item, the usage", () => {
    const compacted = renderCompactedResponse(answer("the summary"), [{ type: "message", role: "user", content: [] }], (summary) => `sealed(${summary})`);
    assert.equal(compacted.object, "response.compaction");
    assert.deepEqual(
      compacted.output.map((item) => item.type),
      ["message", "compaction"],
    );
    assert.equal(compacted.output[1]!.encrypted_content, "sealed(the summary)");
    assert.deepEqual([compacted.usage?.input_tokens, compacted.usage?.output_tokens, compacted.usage?.total_tokens], [50, 7, 57]);
  });

  test("no summary written is a 502 that says nothing was compacted, never an empty item", () => {
    assert.throws(
      () => renderCompactedResponse(answer("  "), [], () => assert.fail("nothing to seal")),
      (error: unknown) => isGatewayError(error) && error.status === 502 && /no summary/.test(error.message),
    );
  });
});
