import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "@/lib/canonical/collect-response";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { parseResponsesBody, toCanonical } from "@/lib/formats/responses/parse-request";
import { newEnvelope, renderResponse } from "@/lib/formats/responses/render-response";
import { renderResponsesStream } from "@/lib/formats/responses/render-stream";
import { flatToolName } from "@/lib/formats/responses/tool-names";

// Coding agents (Codex) declare freeform tools such as apply_patch with a grammar; on a
// translated path they become a one-string-argument function and come back as
// custom_tool_call items with the raw input.

const APPLY_PATCH = {
  type: "custom",
  name: "apply_patch",
  description: "Apply a patch to files.",
  format: { type: "grammar", syntax: "lark", definition: 'start: "*** Begin Patch" LF hunk+ "*** End Patch"' },
};

/** Events in batches of two, as a parser yields them per upstream read. */
async function* from(events: StreamEvent[]): AsyncGenerator<StreamEvent[]> {
  for (let start = 0; start < events.length; start += 2) yield events.slice(start, start + 2);
}

const patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch";
const callEvents = (): StreamEvent[] => [
  { type: "message-start", id: "m", model: "x", created: 1 },
  { type: "tool-call-start", index: 0, id: "call_1", name: "apply_patch" },
  { type: "tool-call-delta", index: 0, argumentsDelta: JSON.stringify({ input: patch }).slice(0, 10) },
  { type: "tool-call-delta", index: 0, argumentsDelta: JSON.stringify({ input: patch }).slice(10) },
  { type: "finish", reason: "tool-calls" },
  { type: "usage", usage: { promptTokens: 10, completionTokens: 5 } },
];

describe("Responses translation", () => {
  test("a custom grammar tool becomes a function with one string argument, its grammar in the description", () => {
    const parsed = toCanonical(parseResponsesBody({ model: "m", input: "fix it", tools: [APPLY_PATCH] }));
    const tool = parsed.chat.tools![0]!;
    assert.equal(tool.name, "apply_patch");
    assert.match(tool.description!, /lark grammar/);
    assert.deepEqual(tool.parameters!.required, ["input"]);
    assert.equal(parsed.tools.get("apply_patch")?.custom, true);
  });

  test("its call comes back as a custom_tool_call with the raw input, whole and streamed", async () => {
    const parsed = toCanonical(parseResponsesBody({ model: "m", input: "fix it", tools: [APPLY_PATCH] }));
    const envelope = newEnvelope("m", parsed.body, parsed.tools);
    const whole = renderResponse(envelope, await collectResponse(from(callEvents())));
    assert.deepEqual(
      whole.output.map((item) => [item.type, item.call_id, item.input]),
      [["custom_tool_call", "call_1", patch]],
    );
    const frames = [];
    for await (const frame of renderResponsesStream(from(callEvents()), envelope)) frames.push(frame);
    const events = frames
      .join("")
      .split("\n\n")
      .filter(Boolean)
      .map((frame) => JSON.parse(frame.split("\ndata: ")[1]!));
    assert.deepEqual(
      events.map((event) => event.type),
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "response.output_item.done",
        "response.completed",
      ],
    );
    assert.equal(events.at(-1).response.output[0].input, patch);
    assert.deepEqual(
      events.map((event) => event.sequence_number),
      events.map((_, index) => index),
    );
  });

  test("history: custom tool calls and outputs, system and developer messages, reasoning items skipped", () => {
    const parsed = toCanonical(
      parseResponsesBody({
        model: "m",
        instructions: "Be careful.",
        tools: [APPLY_PATCH],
        input: [
          { role: "developer", content: "Repo at /src." },
          { role: "user", content: [{ type: "input_text", text: "add a.txt" }] },
          { type: "reasoning", id: "rs_1", summary: [] },
          { type: "custom_tool_call", call_id: "call_1", name: "apply_patch", input: patch },
          { type: "custom_tool_call_output", call_id: "call_1", output: "Done" },
        ],
      }),
    );
    assert.equal(parsed.chat.system, "Be careful.\n\nRepo at /src.");
    assert.deepEqual(
      parsed.chat.messages.map((message) => message.role),
      ["user", "assistant", "tool"],
    );
    assert.deepEqual(parsed.chat.messages[1]!.content[0], { type: "tool-call", id: "call_1", name: "apply_patch", arguments: JSON.stringify({ input: patch }) });
  });

  test("max_output_tokens reached is an incomplete response", async () => {
    const envelope = newEnvelope("m", parseResponsesBody({ model: "m", input: "x" }), new Map());
    const response = renderResponse(
      envelope,
      await collectResponse(
        from([
          { type: "text-delta", text: "cut" },
          { type: "finish", reason: "length" },
        ]),
      ),
    );
    assert.equal(response.status, "incomplete");
    assert.deepEqual(response.incomplete_details, { reason: "max_output_tokens" });
  });
});

describe("namespace tool names", () => {
  const VALID = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

  test("namespace__name when that fits every vendor; otherwise sanitised, and hashed when too long", () => {
    assert.equal(flatToolName("multi_agent_v1", "close_agent"), "multi_agent_v1__close_agent");
    assert.equal(flatToolName("crm.v2", "find contact"), "crm_v2__find_contact");
    assert.equal(flatToolName("9lives", "x"), "_9lives__x");
    const long = flatToolName("n".repeat(60), "tool");
    assert.match(long, VALID);
    assert.equal(long.length, 64);
    assert.notEqual(flatToolName("n".repeat(60), "tool"), flatToolName("n".repeat(60), "tool2"), "the hash tells long names apart");
    assert.equal(flatToolName("n".repeat(60), "tool"), long, "the same names flatten alike in every turn");
  });

  test("a namespaced call and its output travel under the flat name and come back with the namespace", async () => {
    const tools = [
      { type: "namespace", name: "crm", description: "CRM", tools: [{ type: "function", name: "find", parameters: { type: "object", properties: {} } }, APPLY_PATCH] },
    ];
    const parsed = toCanonical(
      parseResponsesBody({
        model: "m",
        tools,
        input: [
          { role: "user", content: "find Ada" },
          { type: "function_call", call_id: "call_1", namespace: "crm", name: "find", arguments: "{}" },
          { type: "function_call_output", call_id: "call_1", output: "found" },
        ],
      }),
    );
    assert.deepEqual(
      parsed.chat.tools!.map((tool) => tool.name),
      ["crm__find", "crm__apply_patch"],
    );
    assert.deepEqual(parsed.chat.messages[1]!.content[0], { type: "tool-call", id: "call_1", name: "crm__find", arguments: "{}" });
    const envelope = newEnvelope("m", parsed.body, parsed.tools);
    const events: StreamEvent[] = [
      { type: "tool-call-start", index: 0, id: "call_2", name: "crm__apply_patch" },
      { type: "tool-call-delta", index: 0, argumentsDelta: JSON.stringify({ input: "patch" }) },
      { type: "finish", reason: "tool-calls" },
    ];
    const whole = renderResponse(envelope, await collectResponse(from(events)));
    assert.deepEqual(
      whole.output.map((item) => [item.type, item.namespace, item.name, item.input]),
      [["custom_tool_call", "crm", "apply_patch", "patch"]],
    );
  });
});
