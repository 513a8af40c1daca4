import type { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { carriedConversation, offerCarriedForm, type CarryRule } from "@/lib/canonical/carried-strings";
import { deferredChat } from "@/lib/canonical/deferred-chat";
import { withDeferredMembers, type JsonBody } from "@/lib/canonical/json-body";
import { BACKSLASH, QUOTE, sameBytes } from "@/lib/canonical/json-scan";
import type { ChatRequest, ContentPart, Message } from "@/lib/canonical/request";
import { SEALED_COMPACTION_PREFIX } from "@/lib/crypto/compaction-seal";
import { withinMessageLimit } from "@/lib/formats/message-list";
import { parseImageUrl } from "@/lib/formats/openai/parse-request";
import { validationError } from "@/lib/formats/validation-error";
import { CUSTOM_TOOL_ARGUMENT, toCanonicalToolChoice, toCanonicalTools, type CanonicalTools } from "./parse-tools";
import { responsesRequestSchema, type InputContent, type InputItem, type ResponsesRequest } from "./schema";
import { upstreamToolName, type ToolTable } from "./tool-names";

export interface ParsedResponsesRequest {
  body: ResponsesRequest;
  chat: ChatRequest;
  /** The declared tools by upstream name: namespaced and custom tools' calls go back as the client named them. */
  tools: ToolTable;
  warnings: string[];
}

export { CUSTOM_TOOL_ARGUMENT } from "./parse-tools";

export function parseResponsesBody(json: unknown): ResponsesRequest {
  const result = responsesRequestSchema.safeParse(json);
  if (!result.success) throw validationError(result.error);
  return result.data;
}

/** What a relay forwards as bytes and the gateway reads only to translate or to store. */
const DEFERRED = ["input", "tools"] as const;
const headSchema = responsesRequestSchema.omit({ input: true, tools: true });
const toolsSchema = responsesRequestSchema.shape.tools;
/** Every member but the input and the tools. */
type ResponsesHead = z.infer<typeof headSchema>;

/**
 * The input items the handler acts on before it relays (compaction.ts: a compaction
 * trigger, the gateway's own sealed compaction items; stored item references): an input
 * with one is parsed whole.
 */
const ITEM_REFERENCE = Buffer.from("item_reference");
const READ_BEFORE_RELAY = [Buffer.from("compaction_trigger"), ITEM_REFERENCE];
/** How encoders write an item whose type comes first (Codex's, JSON.stringify of the SDK's objects). */
const TYPE_FIRST = Buffer.from('{"type":"');
const COMPACTION = Buffer.from("compaction");
const SEALED = Buffer.from(SEALED_COMPACTION_PREFIX);
/** What an item not written type first is searched for. */
const NAMES = [COMPACTION, ITEM_REFERENCE];
const ESCAPE = Buffer.from("\\u00");
/** What those names and the seal's prefix are spelt with. */
const NAME_CHARACTER = /^[\w.]$/;

/** A request read for a relay, and how it is translated when it is not relayed. */
export interface DeferredResponses {
  body: ResponsesRequest;
  /**
   * The request as a canonical chat: its settings and tools read now, its conversation
   * (instructions and input) converted only when something reads it (deferred-chat.ts),
   * and its long text carried into a translated body as the client's bytes
   * (carried-strings.ts).
   */
  translate(): ParsedResponsesRequest;
}

/**
 * A request read for a relay (a Codex turn): its other fields validated now; the input and
 * tools parsed and validated only when something reads them (a translation, a stored
 * response), and then whole, as parseResponsesBody does. Until then an upstream serving
 * /responses validates them. Undefined when the body is not laid out for it or an input
 * item may be one the handler reads first (READ_BEFORE_RELAY).
 */
export function parseResponsesDeferred(json: JsonBody): DeferredResponses | undefined {
  const { layout } = json;
  const input = json.find("input");
  const tools = json.find("tools");
  if (!layout || !input?.items?.length || !withinMessageLimit(input.items.length / 2) || (tools && !tools.items)) return undefined;
  for (let index = 0; index < input.items.length; index += 2) {
    if (mayBeReadBeforeRelay(json.bytes, input.items[index]!, input.items[index + 1]!)) return undefined;
  }
  const head = headSchema.safeParse(json.parseMembers(DEFERRED));
  if (!head.success) throw validationError(head.error);
  // Parsed and validated only: converting it too would refuse items only OpenAI reads (its own compaction items) when a relay stores its input.
  let whole: ResponsesRequest | undefined;
  const parseWhole = () => (whole ??= parseResponsesBody(json.value()));
  const body = withDeferredMembers(layout, head.data, DEFERRED, parseWhole) as ResponsesRequest;
  let converted: ParsedResponsesRequest | undefined;
  const convertWhole = () => (converted ??= toCanonical(parseWhole()));
  return {
    body,
    translate() {
      const declared = toolsSchema.safeParse(tools ? json.parseMember(tools) : undefined);
      // Tools the schema refuses: the whole parse says why.
      if (!declared.success) return convertWhole();
      // The response echoes the tools: read now, they are the body's, and its input stays unparsed.
      if (tools) Object.defineProperty(body, "tools", { value: declared.data, enumerable: true, writable: true, configurable: true });
      const canonicalTools = toCanonicalTools(declared.data);
      const chat = deferredChat(chatSettings(head.data, canonicalTools), () => convertWhole().chat);
      offerCarriedForm(chat, () =>
        carriedConversation(json, { ...head.data, tools: declared.data }, CARRIED, (value) => {
          const result = responsesRequestSchema.safeParse(value);
          if (!result.success) return undefined;
          const { chat, warnings } = toCanonical(result.data);
          return { chat, warnings };
        }),
      );
      return { body, chat, tools: canonicalTools.table, warnings: settingsWarnings(head.data) };
    },
  };
}

/**
 * What of the conversation is text a translation carries as the client's bytes
 * (carried-strings.ts): the instructions; a message's content and its parts' text, a
 * tool's output, a reasoning item's encrypted content (dropped whole). A call's arguments
 * and a custom tool's input are never carried: they become the text of a JSON string of
 * their own.
 */
const CARRIED: readonly [key: "instructions" | (typeof DEFERRED)[number], rule: CarryRule][] = [
  ["instructions", { keys: new Set(), depth: 0, whole: true }],
  ["input", { keys: new Set(["content", "text", "output", "encrypted_content"]), depth: 3, whole: false }],
];

/**
 * Whether the item at bytes[start, end) may be of a type in READ_BEFORE_RELAY or a sealed
 * compaction item: its type read where it comes first, else its bytes searched for those
 * names (searching the whole input would cost a third of the relay). A type given twice
 * in one item (JSON.parse keeps the last) is read as the first: the gateway does not act
 * on such an item first (a sealed compaction item goes up as written, or is refused as
 * OpenAI's own when translated; a trigger is not honoured), which only the request that
 * holds it can notice.
 */
function mayBeReadBeforeRelay(bytes: Buffer, start: number, end: number): boolean {
  // Read in place, byte by byte: a native call per item (a compare, a decode) cost more than the bytes it reads.
  const typeAt = start + TYPE_FIRST.length;
  if (end > typeAt && sameBytes(bytes, start, TYPE_FIRST)) {
    let close = typeAt;
    while (close < end && bytes[close] !== QUOTE && bytes[close] !== BACKSLASH) close += 1;
    // A type with an escape in it, or cut off, is searched for as below.
    if (close < end && bytes[close] === QUOTE) {
      const length = close - typeAt;
      // OpenAI's own compaction items (one in every turn after OpenAI compacted) are relayed as they are.
      if (length === COMPACTION.length && sameBytes(bytes, typeAt, COMPACTION)) {
        const item = bytes.subarray(start, end);
        return item.includes(SEALED) || escapesNameCharacter(item);
      }
      return READ_BEFORE_RELAY.some((name) => length === name.length && sameBytes(bytes, typeAt, name));
    }
  }
  const item = bytes.subarray(start, end);
  return NAMES.some((name) => item.includes(name)) || escapesNameCharacter(item);
}

/** Whether `bytes` write a letter, digit, dot or underscore as a \u escape, as JSON encoders do not unasked (Go's escape <, > and &). */
function escapesNameCharacter(bytes: Buffer): boolean {
  for (let at = bytes.indexOf(ESCAPE); at !== -1; at = bytes.indexOf(ESCAPE, at + ESCAPE.length)) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === 0x5c) backslashes += 1;
    const code = Number.parseInt(bytes.toString("latin1", at + ESCAPE.length, at + ESCAPE.length + 2), 16);
    if (backslashes % 2 === 0 && NAME_CHARACTER.test(String.fromCharCode(code))) return true;
  }
  return false;
}

/** The Responses request as a canonical chat, for upstreams without /responses. */
export function toCanonical(body: ResponsesRequest, history: Message[] = [], historySystem?: string): ParsedResponsesRequest {
  const tools = toCanonicalTools(body.tools);
  const system: string[] = [];
  if (historySystem) system.push(historySystem);
  if (body.instructions) system.push(body.instructions);
  const messages: Message[] = [...history];
  const items: InputItem[] = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? []);
  for (const [index, item] of items.entries()) addItem(item, index, messages, system);
  return {
    body,
    tools: tools.table,
    warnings: settingsWarnings(body),
    chat: { ...chatSettings(body, tools), system: system.length > 0 ? system.join("\n\n") : undefined, messages },
  };
}

/** Every field of the chat but its conversation (system and messages): what the body's other members and its tools say. */
function chatSettings(body: ResponsesHead, { tools, hostedTools }: CanonicalTools): Omit<ChatRequest, "system" | "messages"> {
  const effort = body.reasoning?.effort;
  return {
    model: body.model,
    stream: body.stream === true,
    maxTokens: body.max_output_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    tools: tools.length > 0 ? tools : undefined,
    hostedTools: hostedTools.length > 0 ? hostedTools : undefined,
    toolChoice: toCanonicalToolChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls ?? undefined,
    reasoning: effort && effort !== "none" ? { effort: effort === "xhigh" ? "high" : (effort as "minimal" | "low" | "medium" | "high") } : undefined,
    responseFormat:
      body.text?.format?.type === "json_schema"
        ? { type: "json", name: (body.text.format as { name?: string }).name, schema: (body.text.format as { schema: Record<string, unknown> }).schema }
        : body.text?.format?.type === "json_object"
          ? { type: "json" }
          : undefined,
    user: body.user,
  };
}

function settingsWarnings(body: ResponsesHead): string[] {
  return body.text?.format && body.text.format.type !== "text" ? [`text.format '${body.text.format.type}' is passed on as a response format where the upstream has one`] : [];
}

function addItem(item: InputItem, index: number, messages: Message[], system: string[]): void {
  if ("role" in item && (item.type === undefined || item.type === "message")) {
    const message = item as { role: string; content: string | InputContent[] };
    if (message.role === "system" || message.role === "developer") {
      system.push(contentText(message.content));
      return;
    }
    const role = message.role === "assistant" ? "assistant" : "user";
    push(messages, role, contentParts(message.content, index));
    return;
  }
  switch (item.type) {
    case "function_call":
    case "custom_tool_call": {
      const call = item as { call_id: string; name: string; namespace?: string | null; arguments?: string; input?: string };
      const argumentsText = item.type === "custom_tool_call" ? JSON.stringify({ [CUSTOM_TOOL_ARGUMENT]: call.input ?? "" }) : (call.arguments ?? "");
      push(messages, "assistant", [{ type: "tool-call", id: call.call_id, name: upstreamToolName(call.name, call.namespace), arguments: argumentsText }]);
      return;
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      const output = item as { call_id: string; output: string | InputContent[] };
      push(messages, "tool", [{ type: "tool-result", toolCallId: output.call_id, content: contentText(output.output) }]);
      return;
    }
    case "reasoning":
      return; // reasoning from another model cannot be replayed to this one
    case "web_search_call":
      return; // a search another service ran: what it found is in the answer's text
    case "compaction_trigger":
      return; // the request for a compaction, read before translation (compaction.ts)
    case "compaction":
      // The gateway's own items were opened before translation: this one is OpenAI's.
      throw new GatewayError(
        "invalid_request",
        "This compaction item was not sealed by this gateway: its encrypted_content is readable only by OpenAI, so it can go only to a model served by an OpenAI or Azure OpenAI channel. Compact the conversation again through this gateway (POST /v1/responses/compact) to continue it on this model.",
        { param: `input[${index}].encrypted_content`, code: "foreign_compaction" },
      );
    case "item_reference":
      throw new GatewayError("invalid_request", "item_reference inputs need the stored response they point to; use previous_response_id instead.", {
        param: `input[${index}]`,
      });
    default:
      throw new GatewayError("invalid_request", `Input items of type '${item.type}' are not supported for this model's provider.`, {
        param: `input[${index}].type`,
        code: "unsupported_input_item",
      });
  }
}

/** Consecutive items of one role become one message (tool calls of one turn together). */
function push(messages: Message[], role: Message["role"], content: ContentPart[]): void {
  const last = messages.at(-1);
  if (last && last.role === role && role !== "user") last.content.push(...content);
  else messages.push({ role, content });
}

function contentText(content: string | InputContent[]): string {
  if (typeof content === "string") return content;
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

function contentParts(content: string | InputContent[], index: number): ContentPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part, partIndex): ContentPart => {
    switch (part.type) {
      case "input_text":
      case "output_text":
        return { type: "text", text: String((part as { text: string }).text) };
      case "refusal":
        return { type: "text", text: String((part as { refusal: string }).refusal) };
      case "input_image": {
        const url = (part as { image_url?: string | null }).image_url;
        if (!url)
          throw new GatewayError("invalid_request", "input_image needs an image_url (file ids are not supported here).", { param: `input[${index}].content[${partIndex}]` });
        return { type: "image", source: parseImageUrl(url) };
      }
      default:
        throw new GatewayError("invalid_request", `Content of type '${part.type}' is not supported for this model's provider.`, {
          param: `input[${index}].content[${partIndex}].type`,
        });
    }
  });
}
