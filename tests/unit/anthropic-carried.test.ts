import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { carriedBody } from "@/lib/canonical/carried-strings";
import { JsonBody } from "@/lib/canonical/json-body";
import { scanJson } from "@/lib/canonical/json-scan";
import { JSON_LIMITS } from "@/lib/canonical/json-shape";
import type { ChatRequest } from "@/lib/canonical/request";
import { parseMessagesRequest, parseMessagesRequestDeferred } from "@/lib/formats/anthropic/parse-request";
import { toAnthropicBody } from "@/lib/providers/anthropic/convert-request";
import { toOpenAIChatBody } from "@/lib/providers/openai/convert-request";

// A Claude Code turn translated through its carried form (carried-strings.ts): the body that
// goes up is the one a whole parse gives, with the long text (tool results, thoughts) as the
// client wrote it. A thought is replayed to Anthropic and dropped for OpenAI.

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "coding-agents", "claude-code-turn.json"), "utf8")) as {
  request: Record<string, unknown>;
};
// As some clients write non-ASCII: escaped. The fixture's thoughts are past the long-string size.
const text = JSON.stringify({ ...fixture.request, model: "m" }).replaceAll("I need to", "I n\\u00e9ed to");

const builders: Record<string, (chat: ChatRequest, warnings: string[]) => Record<string, unknown>> = {
  anthropic: (chat, warnings) => toAnthropicBody(chat, "up", 4096, warnings),
  openai: (chat, warnings) => toOpenAIChatBody(chat, "up", warnings),
};

describe("an Anthropic turn translated through its carried form", () => {
  for (const [upstream, build] of Object.entries(builders)) {
    test(`to ${upstream}: the whole parse's body, with the client's bytes for its long text`, () => {
      const bytes = Buffer.from(text);
      const parsed = parseMessagesRequestDeferred(new JsonBody(bytes, 0, scanJson(bytes, 0, JSON_LIMITS).object), [])!;
      const sent = carriedBody(parsed.chat, [], build);
      assert.ok(Buffer.isBuffer(sent), "the carried form was used");
      const expected = build(parseMessagesRequest(JSON.parse(text)).chat, []);
      assert.deepEqual(JSON.parse(sent.toString()), JSON.parse(JSON.stringify(expected)));
      // The thoughts' own escapes: carried as the client wrote them to Anthropic, dropped for OpenAI.
      const escaped = sent.toString().split("I n\\u00e9ed to").length - 1;
      if (upstream === "anthropic") assert.ok(escaped >= 3, `${escaped} thoughts went up as the client wrote them`);
      else assert.equal(escaped, 0);
    });
  }
});
