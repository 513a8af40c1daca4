import { carriedConversation, offerCarriedForm, type CarryRule } from "@/lib/canonical/carried-strings";
import { deferredChat } from "@/lib/canonical/deferred-chat";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { withDeferredMembers, type JsonBody } from "@/lib/canonical/json-body";
import { everyItemHasKey, type ItemKeyWatch, OPEN_BRACKET, valueEnd } from "@/lib/canonical/json-scan";
import type { ChatRequest, ContentPart, ImageSource, Message, ToolChoice } from "@/lib/canonical/request";
import { withinMessageLimit } from "@/lib/formats/message-list";
import { validationError } from "@/lib/formats/validation-error";
import { chatCompletionHeadSchema, chatCompletionRequestSchema, type ChatCompletionMessage, type ChatCompletionRequest } from "./schema";

export interface ParsedChatCompletion {
  body: ChatCompletionRequest;
  chat: ChatRequest;
  /** Whether the caller asked for the trailing usage chunk. */
  includeUsage: boolean;
  /** Whether `body` says exactly what the client's JSON says (the schema filled in nothing). */
  asSent: boolean;
}

export function parseChatCompletionRequest(json: unknown): ParsedChatCompletion {
  const result = chatCompletionRequestSchema.safeParse(json);
  if (!result.success) throw validationError(result.error);
  const body = result.data;
  return {
    body,
    chat: toCanonical(body),
    includeUsage: body.stream === true && body.stream_options?.include_usage === true,
    asSent: !fillsInToolCallType(json as ChatCompletionRequest),
  };
}

/** What a relay forwards as bytes and the gateway reads only to translate, cache or count. */
const DEFERRED = ["messages", "tools"] as const;
const TYPE_KEY = Buffer.from("type");
/** Read by the body's scan: whether every tool call names its type (the schema fills in a missing one). */
export const TOOL_CALL_TYPES: ItemKeyWatch = { array: Buffer.from("tool_calls"), key: TYPE_KEY };

/**
 * A request read for a relay: its other fields validated now; the conversation (messages,
 * tools) parsed, validated and converted only when something reads it, and then whole, as
 * parseChatCompletionRequest does. Until then an upstream of this format validates it.
 * Undefined when the body is not laid out for it, or when the schema would fill in a tool
 * call's type (the relay must then send the filled-in body): the caller parses it whole.
 */
export function parseChatCompletionDeferred(json: JsonBody): (ParsedChatCompletion & { conversationBytes: number }) | undefined {
  const { layout } = json;
  const messages = json.find("messages");
  const tools = json.find("tools");
  if (!layout || !messages?.items?.length || !withinMessageLimit(messages.items.length / 2) || (tools && !tools.items)) return undefined;
  // A call without its type is given one by the schema, so the body is parsed whole. The scan
  // answered as it read (TOOL_CALL_TYPES); a body scanned without it has its tool calls read
  // here, unparsed. A value that is not one (`"tool_calls":}`) is left to the whole parse,
  // which refuses the body.
  if (layout.unkeyedItems === true) return undefined;
  if (layout.unkeyedItems === undefined)
    for (const start of json.valueStartsOf(messages, "tool_calls")) {
      if (json.bytes[start] === OPEN_BRACKET ? !everyItemHasKey(json.bytes, start, TYPE_KEY, layout.longStrings) : valueEnd(json.bytes, start) === -1) return undefined;
    }
  const head = chatCompletionHeadSchema.safeParse(json.parseMembers(DEFERRED));
  if (!head.success) throw validationError(head.error);
  let whole: ParsedChatCompletion | undefined;
  const parseWhole = () => (whole ??= parseChatCompletionRequest(json.value()));
  const body = withDeferredMembers(layout, head.data, DEFERRED, () => parseWhole().body as Record<string, unknown>) as ChatCompletionRequest;
  const chat = deferredChat(
    { model: head.data.model, stream: head.data.stream === true, maxTokens: head.data.max_completion_tokens ?? head.data.max_tokens ?? undefined, user: head.data.user },
    () => parseWhole().chat,
  );
  offerCarriedForm(chat, () =>
    carriedConversation(json, head.data, CARRIED, (value) => {
      const result = chatCompletionRequestSchema.safeParse(value);
      return result.success ? { chat: toCanonical(result.data), warnings: [] } : undefined;
    }),
  );
  return {
    body,
    chat,
    includeUsage: head.data.stream === true && head.data.stream_options?.include_usage === true,
    asSent: true,
    conversationBytes: messages.end - messages.start,
  };
}

/**
 * What of the conversation is text a translation carries as the client's bytes
 * (carried-strings.ts): a message's content and its parts' text (a tool call's arguments
 * and an image's address are deeper), the tools' descriptions.
 */
const CARRIED: readonly [key: (typeof DEFERRED)[number], rule: CarryRule][] = [
  ["messages", { keys: new Set(["content", "text"]), depth: 3, whole: false }],
  ["tools", { keys: new Set(["description"]), depth: Infinity, whole: false }],
];

/** The one default the schema applies: a tool call sent without its `type` gets "function". */
function fillsInToolCallType(json: ChatCompletionRequest): boolean {
  return json.messages.some((message) => message?.role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.some((call) => call?.type === undefined));
}

function toCanonical(body: ChatCompletionRequest): ChatRequest {
  const systemTexts: string[] = [];
  const messages: Message[] = [];
  for (const message of body.messages) {
    if (message.role === "system" || message.role === "developer") {
      systemTexts.push(textOf(message.content));
      continue;
    }
    messages.push(toCanonicalMessage(message));
  }
  const stop = body.stop == null ? undefined : typeof body.stop === "string" ? [body.stop] : body.stop;
  const effort = body.reasoning_effort;
  return {
    model: body.model,
    system: systemTexts.length > 0 ? systemTexts.join("\n\n") : undefined,
    messages,
    stream: body.stream === true,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    stop,
    tools: body.tools?.flatMap((tool) =>
      tool.type === "function" ? [{ name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters }] : [],
    ),
    toolChoice: toCanonicalToolChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls,
    reasoning: effort == null || effort === "none" ? undefined : { effort: effort === "xhigh" || effort === "max" ? "high" : effort },
    user: body.user,
  };
}

function textOf(content: string | { text: string }[]): string {
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}

function toCanonicalMessage(message: Exclude<ChatCompletionMessage, { role: "system" | "developer" }>): Message {
  switch (message.role) {
    case "user": {
      const content: ContentPart[] =
        typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content.map((part, index) => {
              if (part.type === "text") return { type: "text", text: part.text };
              if (part.type === "image_url") return { type: "image", source: parseImageUrl(part.image_url.url) };
              throw new GatewayError("invalid_request", `Content part type '${part.type}' is not supported by this model.`, {
                param: `messages.content[${index}].type`,
              });
            });
      return { role: "user", content, name: message.name };
    }
    case "assistant": {
      const content: ContentPart[] = [];
      if (message.reasoning_content) content.push({ type: "reasoning", text: message.reasoning_content });
      const text =
        message.content == null ? "" : typeof message.content === "string" ? message.content : message.content.map((part) => ("text" in part ? part.text : part.refusal)).join("");
      if (text !== "") content.push({ type: "text", text });
      for (const call of message.tool_calls ?? []) {
        content.push({ type: "tool-call", id: call.id, name: call.function.name, arguments: call.function.arguments });
      }
      return { role: "assistant", content, name: message.name };
    }
    case "tool":
      return {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: message.tool_call_id, content: textOf(message.content) }],
      };
    case "function":
      return {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: message.name, content: message.content ?? "" }],
      };
  }
}

export function parseImageUrl(url: string): ImageSource {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { kind: "base64", mediaType: match[1]!, data: match[2]! };
  return { kind: "url", url };
}

function toCanonicalToolChoice(choice: ChatCompletionRequest["tool_choice"]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice };
  if (choice.type === "function") return { type: "tool", name: (choice.function as { name: string }).name };
  return { type: "auto" };
}
