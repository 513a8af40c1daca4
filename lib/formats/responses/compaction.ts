import { collectResponse, type ChatResponse } from "@/lib/canonical/collect-response";
import { GatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent, StreamEventBatches } from "@/lib/canonical/stream-event";
import { isSealedCompaction, type OpenedCompaction } from "@/lib/crypto/compaction-seal";
import { encodeSse } from "@/lib/sse/encode-sse";
import { renderResponsesStreamError } from "./render-stream-error";
import { newId, renderUsage, responseObject, type OutputItem, type ResponseEnvelope } from "./render-response";
import type { ResponsesRequest } from "./schema";

// Compaction done by the gateway for upstreams without OpenAI's /responses/compact: the
// model writes a summary, the gateway seals it into one `compaction` item (the caller
// cannot read or forge it) and opens it again when a later request sends it back.

/** What the model is asked for: the state a coding agent needs to carry on without the transcript. */
export const COMPACTION_PROMPT = [
  "The conversation above is about to be replaced by a summary: write that summary now. It is for you, to continue this coding session without the transcript.",
  "Write plain text with these sections:",
  "1. Goal: what the user asked for, in their words where they matter, with every constraint and preference they stated.",
  "2. Files: every file read, created, edited or deleted, with its path and what changed or what was learnt from it.",
  "3. Decisions: what was decided and why, approaches tried and rejected, commands that worked and errors met.",
  "4. Open tasks: what is left to do, unanswered questions, failing tests.",
  "5. Next steps: exactly what you were about to do next.",
  "Keep names, paths, identifiers and numbers exact. Do not call tools; answer with the summary only.",
].join("\n");

/** How a summary reaches the upstream in later requests. */
export const SUMMARY_PREAMBLE = "The earlier part of this conversation was compacted. This is a summary of it, written for you to continue from:\n\n";

/** User messages kept beside the summary, newest first up to about 20,000 tokens, as Codex keeps them. */
const KEPT_USER_CHARACTERS = 80_000;

type Item = Record<string, unknown>;

export function inputList(input: ResponsesRequest["input"]): Item[] {
  return typeof input === "string" ? [{ role: "user", content: input }] : ((input ?? []) as Item[]);
}

const isCompaction = (item: Item) => item.type === "compaction" && typeof item.encrypted_content === "string";

/**
 * The input with every compaction item the gateway sealed replaced by its summary, as a
 * developer message; undefined when there is none. A seal that fails to open is a 400.
 */
export function openSealedCompactions(input: ResponsesRequest["input"], open: (value: string) => OpenedCompaction): ResponsesRequest["input"] | undefined {
  const items = inputList(input);
  if (!items.some((item) => isCompaction(item) && isSealedCompaction(item.encrypted_content as string))) return undefined;
  return items.map((item, index) => {
    if (!isCompaction(item) || !isSealedCompaction(item.encrypted_content as string)) return item;
    const opened = open(item.encrypted_content as string);
    if ("refused" in opened) {
      const why = opened.refused === "other-owner" ? "was sealed for another API key's owner" : "was altered after the gateway sealed it";
      throw new GatewayError("invalid_request", `The compaction item's encrypted_content ${why}; it cannot be opened.`, {
        param: `input[${index}].encrypted_content`,
        code: "invalid_encrypted_content",
      });
    }
    return { type: "message", role: "developer", content: SUMMARY_PREAMBLE + opened.summary };
  }) as ResponsesRequest["input"];
}

/** The input without a last `compaction_trigger` item, and whether it had one. */
export function takeCompactionTrigger(input: ResponsesRequest["input"]): { input: ResponsesRequest["input"]; triggered: boolean } {
  const items = inputList(input);
  if (items.at(-1)?.type !== "compaction_trigger") return { input, triggered: false };
  return { input: items.slice(0, -1) as ResponsesRequest["input"], triggered: true };
}

/** The conversation with the request for its summary after it; no tool may be called. */
export function compactionRequest(chat: ChatRequest): ChatRequest {
  const messages = [...chat.messages];
  const last = messages.at(-1);
  const ask = { type: "text" as const, text: COMPACTION_PROMPT };
  if (last?.role === "user") messages[messages.length - 1] = { ...last, content: [...last.content, ask] };
  else messages.push({ role: "user", content: [ask] });
  return {
    ...chat,
    messages,
    toolChoice: chat.tools ? { type: "none" } : undefined,
    hostedTools: undefined,
    responseFormat: undefined,
    maxTokens: undefined,
  };
}

/** The user messages OpenAI keeps in a compacted conversation: the newest, in order, as output items. */
export function keptUserMessages(input: ResponsesRequest["input"]): Item[] {
  const users = inputList(input).filter((item) => item.role === "user" && (item.type === undefined || item.type === "message"));
  const kept: Item[] = [];
  let size = 0;
  for (const item of users.reverse()) {
    const content = typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : item.content;
    size += JSON.stringify(content).length;
    if (size > KEPT_USER_CHARACTERS && kept.length > 0) break;
    kept.unshift({ type: "message", id: newId("msg"), status: "completed", role: "user", content });
  }
  return kept;
}

export function compactionItem(encryptedContent: string): OutputItem {
  return { type: "compaction", id: newId("cmp"), encrypted_content: encryptedContent };
}

const ZERO_USAGE = { promptTokens: 0, completionTokens: 0 };

/** The summary the model wrote; none (a refusal, a tool call) leaves nothing to compact to. */
function summaryOf(answer: ChatResponse): string {
  if (answer.text.trim() === "") {
    throw new GatewayError("bad_gateway", "The model wrote no summary of the conversation, so nothing was compacted. Try again, or compact with another model.", {
      code: "empty_compaction",
    });
  }
  return answer.text;
}

/** The answer of POST /v1/responses/compact. */
export function renderCompactedResponse(answer: ChatResponse, kept: Item[], seal: (summary: string) => string) {
  return {
    id: newId("resp"),
    object: "response.compaction",
    created_at: Math.floor(Date.now() / 1000),
    output: [...kept, compactionItem(seal(summaryOf(answer)))],
    usage: renderUsage(answer.usage ?? ZERO_USAGE),
  };
}

/** A Responses answer to a `compaction_trigger`: its one output item is the compaction. */
export function renderTriggeredCompaction(envelope: ResponseEnvelope, answer: ChatResponse, seal: (summary: string) => string) {
  return responseObject(envelope, { status: "completed", output: [compactionItem(seal(summaryOf(answer)))], usage: answer.usage ?? ZERO_USAGE });
}

/** How many summary deltas one `response.compaction.compacting` progress event stands for. */
const DELTAS_PER_PROGRESS = 64;

/**
 * The same, streamed as OpenAI streams a trigger's compaction: the item opened without its
 * content, `response.compaction.compacting` while the summary is written (it is sealed,
 * never shown in parts), then the whole item and the response.
 */
export async function* renderTriggeredCompactionStream(
  events: StreamEventBatches,
  envelope: ResponseEnvelope,
  seal: (summary: string) => string,
  onDone: (response: ReturnType<typeof responseObject>) => void,
): AsyncGenerator<string> {
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => encodeSse(JSON.stringify({ type, sequence_number: sequence++, ...data }), type);
  const opened = responseObject(envelope, { status: "in_progress", output: [] });
  const itemId = newId("cmp");
  yield event("response.created", { response: opened }) +
    event("response.in_progress", { response: opened }) +
    event("response.output_item.added", { output_index: 0, item: { type: "compaction", id: itemId } });
  const batches: StreamEvent[][] = [];
  let deltas = 0;
  let done: ReturnType<typeof renderTriggeredCompaction>;
  try {
    for await (const batch of events) {
      batches.push(batch);
      for (const part of batch) {
        if (part.type !== "text-delta") continue;
        if (deltas % DELTAS_PER_PROGRESS === 0) yield event("response.compaction.compacting", { item_id: itemId, output_index: 0 });
        deltas += 1;
      }
    }
    const answer = await collectResponse(
      (async function* () {
        yield* batches;
      })(),
    );
    done = renderTriggeredCompaction(envelope, answer, seal);
  } catch (error) {
    yield renderResponsesStreamError(toGatewayError(error), sequence++);
    return;
  }
  const item = { ...done.output[0]!, id: itemId };
  const completed = { ...done, output: [item] };
  onDone(completed);
  yield event("response.output_item.done", { output_index: 0, item }) + event("response.completed", { response: completed });
}
