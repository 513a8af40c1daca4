import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { addVendorChannels, closeVendorFakes, startVendorFakes, type VendorFakes } from "../helpers/vendor-fakes";

// Codex's own compaction, replayed byte for byte from a recording of the real CLI
// (tests/agents/record-codex-compaction.ts): its turn, the request that ends in a
// `compaction_trigger` item, and the follow-up that carries the compaction item back. On
// upstreams without OpenAI's compaction the gateway must answer the trigger with exactly one
// compaction item (Codex fails the turn otherwise), and the follow-up's upstream must get the
// summary, never the sealed item nor the turns it replaced.

interface RecordedRequest {
  step: "turn" | "compaction" | "follow-up";
  method: string;
  path: string;
  headers: Record<string, string>;
  body: { model: string; input: Record<string, unknown>[] } & Record<string, unknown>;
}

const FIXTURE = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "agents", "codex-compaction.json"), "utf8")) as {
  version: string;
  droppedMark: string;
  compactionItem: { type: "compaction"; encrypted_content: string };
  requests: RecordedRequest[];
};
const step = (name: RecordedRequest["step"]) => FIXTURE.requests.find((request) => request.step === name)!;

/** Codex's prompt, which the compacted history keeps as a user message. */
const USER_PROMPT = "Print the greeting, then summarise what you did";
const SUMMARY_MARK = "This is a summary of it";
const COMPACTION_ASK = "about to be replaced by a summary";

const UPSTREAMS = [
  { kind: "chat-only (OpenAI chat completions)", model: "chat-only-test", upstream: "openai" },
  { kind: "Anthropic", model: "claude-test", upstream: "anthropic" },
] as const;

let gateway: Gateway;
let fakes: VendorFakes;
let key: string;

before(async () => {
  fakes = await startVendorFakes();
  gateway = await startGateway();
  await addVendorChannels(gateway, fakes, { openai: ["chat-only-test"], anthropic: ["claude-test"], gemini: [] });
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "codex-compaction" })).body.key as string;
});

after(async () => {
  await gateway?.stop();
  await closeVendorFakes(fakes);
});

interface Streamed {
  status: number;
  events: { type: string; item?: Record<string, unknown>; response?: { status: string; output: Record<string, unknown>[] } }[];
}

/** One recorded request sent as Codex sent it (its headers, our key), its SSE answer read to the end. */
async function replay(request: RecordedRequest, body: RecordedRequest["body"]): Promise<Streamed> {
  const response = await fetch(`${gateway.url}${request.path}`, {
    method: request.method,
    headers: { ...request.headers, authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  if (!response.ok) return { status: response.status, events: [{ type: `error: ${await response.text()}` }] };
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  const events: Streamed["events"] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    if (read.value.data !== "[DONE]") events.push(JSON.parse(read.value.data));
  }
  return { status: response.status, events };
}

const completedOf = (streamed: Streamed) => streamed.events.find((event) => event.type === "response.completed")?.response;

test("the fixture is a real Codex compaction: a trigger after the tool call, then a follow-up carrying the compaction item", () => {
  assert.match(FIXTURE.version, /^\d+\.\d+\.\d+$/);
  const compaction = step("compaction").body.input;
  assert.equal(compaction.at(-1)?.type, "compaction_trigger");
  assert.ok(JSON.stringify(compaction).includes(FIXTURE.droppedMark), "the compacted turn holds the tool call");
  const followUp = step("follow-up").body.input;
  assert.equal(followUp.filter((item) => item.type === "compaction").length, 1);
  assert.ok(!JSON.stringify(followUp).includes(FIXTURE.droppedMark), "Codex itself dropped the tool call");
});

describe(`Codex ${FIXTURE.version}'s compaction replayed through the gateway`, () => {
  for (const { kind, model, upstream } of UPSTREAMS) {
    test(`${kind}: exactly one sealed compaction item for the trigger; the follow-up's upstream gets the summary, not the seal nor the dropped turn`, async () => {
      const received = () => fakes[upstream].received;
      const turn = await replay(step("turn"), { ...step("turn").body, model });
      assert.equal(turn.status, 200, JSON.stringify(turn.events));
      assert.equal(completedOf(turn)?.status, "completed");

      // The compaction: what Codex requires is exactly one compaction output item.
      const compaction = await replay(step("compaction"), { ...step("compaction").body, model });
      assert.equal(compaction.status, 200, JSON.stringify(compaction.events));
      const done = compaction.events.filter((event) => event.type === "response.output_item.done").map((event) => event.item!);
      assert.deepEqual(
        done.map((item) => item.type),
        ["compaction"],
        "exactly one compaction output item",
      );
      const completed = completedOf(compaction);
      assert.equal(completed?.status, "completed");
      assert.deepEqual(completed?.output, done);
      const item = done[0] as { type: "compaction"; id: string; encrypted_content: string };
      assert.match(item.encrypted_content, /^gwcompact1\./);
      assert.ok(!item.encrypted_content.includes(FIXTURE.droppedMark) && !item.encrypted_content.includes("Echo"), "the summary is sealed, not readable");
      const asked = JSON.stringify(received().at(-1)!.body);
      assert.ok(asked.includes(COMPACTION_ASK), `${kind}: the model is asked for a summary`);
      assert.ok(asked.includes(FIXTURE.droppedMark), `${kind}: of the whole conversation, the tool call included`);
      assert.ok(!asked.includes("compaction_trigger"));

      // The follow-up, with the gateway's item where Codex put the one it was given.
      const recorded = step("follow-up").body;
      const input = recorded.input.map((entry) => (entry.type === "compaction" ? item : entry));
      assert.ok(input.includes(item));
      const calls = received().length;
      const followUp = await replay(step("follow-up"), { ...recorded, model, input });
      assert.equal(followUp.status, 200, JSON.stringify(followUp.events));
      assert.equal(completedOf(followUp)?.status, "completed");
      assert.equal(received().length, calls + 1, "one upstream call");
      const sent = received().at(-1)!.raw;
      assert.ok(sent.includes(SUMMARY_MARK), `${kind}: the summary reaches the upstream as context`);
      assert.ok(sent.includes("Echo:"), `${kind}: the model's own summary is what it gets back`);
      assert.ok(sent.includes(USER_PROMPT), `${kind}: the user's request is kept`);
      assert.ok(!sent.includes(FIXTURE.droppedMark), `${kind}: the compacted tool call and its output stay dropped`);
      assert.ok(!sent.includes("gwcompact1.") && !sent.includes(item.encrypted_content.slice(20, 60)), `${kind}: the sealed item never leaves the gateway`);
      assert.deepEqual(fakes[upstream].rejected, []);
    });
  }

  test("the follow-up with Codex's recorded (OpenAI-opaque) item is refused clearly on an upstream that cannot read it", async () => {
    const recorded = step("follow-up");
    const response = await fetch(`${gateway.url}${recorded.path}`, {
      method: "POST",
      headers: { ...recorded.headers, authorization: `Bearer ${key}` },
      body: JSON.stringify({ ...recorded.body, model: "claude-test" }),
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { code: string } };
    assert.equal(body.error.code, "foreign_compaction");
  });
});
