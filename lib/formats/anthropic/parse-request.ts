import { carriedConversation, offerCarriedForm, type CarryRule } from "@/lib/canonical/carried-strings";
import { deferredChat } from "@/lib/canonical/deferred-chat";
import { withDeferredMembers, type JsonBody } from "@/lib/canonical/json-body";
import { QUOTE } from "@/lib/canonical/json-scan";
import type { ChatRequest, ContentPart, Message, ToolChoice } from "@/lib/canonical/request";
import { withinMessageLimit } from "@/lib/formats/message-list";
import { validationError } from "@/lib/formats/validation-error";
import { messagesRequestSchema, type AnthropicContentBlock, type CountTokensRequest, type MessagesRequest } from "./schema";

export interface ParsedMessages {
  body: MessagesRequest;
  chat: ChatRequest;
  /** What the canonical request could not carry. */
  warnings: string[];
}

export function parseMessagesRequest(json: unknown): ParsedMessages {
  const result = messagesRequestSchema.safeParse(json);
  if (!result.success) throw validationError(result.error);
  const warnings: string[] = [];
  return { body: result.data, chat: toCanonical(result.data, warnings), warnings };
}

/** What a relay forwards as bytes and the gateway reads only to translate, cache or count. */
const DEFERRED = ["messages", "system", "tools"] as const;
const headSchema = messagesRequestSchema.omit({ messages: true, system: true, tools: true });

/**
 * A request read for a relay: its other fields validated now; the conversation (messages,
 * system, tools) parsed, validated and converted only when something reads it (a
 * translation, the response cache, counting), and then whole, as parseMessagesRequest does.
 * Until then an upstream of this format validates it. What the conversion warns of goes to
 * `warnings` when it happens. Undefined when the body is not laid out for it (the caller
 * parses it whole, which also says what is wrong).
 */
export function parseMessagesRequestDeferred(json: JsonBody, warnings: string[]): (ParsedMessages & { conversationBytes: number }) | undefined {
  const { layout } = json;
  const messages = json.find("messages");
  const system = json.find("system");
  const tools = json.find("tools");
  if (
    !layout ||
    !messages?.items?.length ||
    !withinMessageLimit(messages.items.length / 2) ||
    (system && !system.items && json.firstByte(system) !== QUOTE) ||
    (tools && !tools.items)
  )
    return undefined;
  const head = headSchema.safeParse(json.parseMembers(DEFERRED));
  if (!head.success) throw validationError(head.error);
  let whole: ParsedMessages | undefined;
  const parseWhole = () => {
    if (!whole) {
      whole = parseMessagesRequest(json.value());
      warnings.push(...whole.warnings);
    }
    return whole;
  };
  const body = withDeferredMembers(layout, head.data, DEFERRED, () => parseWhole().body) as MessagesRequest;
  const chat = deferredChat(
    { model: head.data.model, stream: head.data.stream === true, maxTokens: head.data.max_tokens, user: head.data.metadata?.user_id ?? undefined },
    () => parseWhole().chat,
  );
  offerCarriedForm(chat, () =>
    carriedConversation(json, head.data, CARRIED, (value) => {
      const result = messagesRequestSchema.safeParse(value);
      if (!result.success) return undefined;
      const warnings: string[] = [];
      return { chat: toCanonical(result.data, warnings), warnings };
    }),
  );
  const conversationBytes = messages.end - messages.start + (system ? system.end - system.start : 0);
  return { body, chat, warnings: [], conversationBytes };
}

/**
 * What of the conversation is text a translation carries as the client's bytes
 * (carried-strings.ts): a block's text, a thinking block's thought (replayed whole to
 * Anthropic, dropped for the others) and a tool result's content (a tool call's input is
 * deeper), the system prompt's, the tools' descriptions.
 */
const CARRIED: readonly [key: (typeof DEFERRED)[number], rule: CarryRule][] = [
  ["messages", { keys: new Set(["text", "content", "thinking"]), depth: 3, whole: false }],
  ["system", { keys: new Set(["text"]), depth: 1, whole: true }],
  ["tools", { keys: new Set(["description"]), depth: Infinity, whole: false }],
];

export function toCanonical(body: CountTokensRequest & { max_tokens?: number }, warnings: string[]): ChatRequest {
  const systemTexts: string[] = [];
  if (typeof body.system === "string") systemTexts.push(body.system);
  else if (body.system) systemTexts.push(body.system.map((block) => block.text).join("\n"));

  const messages: Message[] = [];
  for (const message of body.messages) {
    const blocks: AnthropicContentBlock[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "system") {
      systemTexts.push(blocks.map((block) => (block.type === "text" ? (block as { text: string }).text : "")).join(""));
      continue;
    }
    if (message.role === "assistant") {
      // Parts pushed to one list (an agent's turn has hundreds of blocks; flatMap costs an array and a callback each).
      const content: ContentPart[] = [];
      for (const block of blocks) assistantPart(block, content, warnings);
      messages.push({ role: "assistant", content });
      continue;
    }
    // A user turn: tool results become a tool message, the rest a user message after it.
    const results: ContentPart[] = [];
    const rest: ContentPart[] = [];
    for (const block of blocks) {
      if (block.type === "tool_result") results.push(toolResult(block as Extract<AnthropicContentBlock, { type: "tool_result" }>, warnings));
      else userPart(block, rest, warnings);
    }
    if (results.length) messages.push({ role: "tool", content: results });
    if (rest.length) messages.push({ role: "user", content: rest });
  }

  const thinking = body.thinking;
  const effort = body.output_config?.effort;
  return {
    model: body.model,
    system: systemTexts.filter(Boolean).join("\n\n") || undefined,
    messages,
    stream: body.stream === true,
    maxTokens: body.max_tokens,
    temperature: body.temperature,
    topP: body.top_p,
    topK: body.top_k,
    stop: body.stop_sequences,
    tools: body.tools?.flatMap((tool) => {
      if (tool.type && tool.type !== "custom") {
        warnings.push(`server tool '${tool.name}' (${tool.type}) is only available on Anthropic upstreams`);
        return [];
      }
      return [{ name: tool.name, description: tool.description, parameters: tool.input_schema }];
    }),
    toolChoice: toolChoice(body.tool_choice),
    parallelToolCalls: body.tool_choice && "disable_parallel_tool_use" in body.tool_choice && body.tool_choice.disable_parallel_tool_use ? false : undefined,
    reasoning:
      thinking?.type === "enabled"
        ? { budgetTokens: (thinking as { budget_tokens: number }).budget_tokens }
        : thinking?.type === "adaptive"
          ? { effort: effort === "low" ? "low" : effort === "medium" || effort === undefined ? "medium" : "high" }
          : undefined,
    user: body.metadata?.user_id ?? undefined,
  };
}

function toolChoice(choice: MessagesRequest["tool_choice"]): ToolChoice | undefined {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case "auto":
      return { type: "auto" };
    case "any":
      return { type: "required" };
    case "none":
      return { type: "none" };
    case "tool":
      return { type: "tool", name: (choice as { name: string }).name };
  }
}

/** Pushes the canonical part of a user block to `parts` (none for a block dropped with a warning). */
function userPart(block: AnthropicContentBlock, parts: ContentPart[], warnings: string[]): void {
  switch (block.type) {
    case "text": {
      const text = (block as { text: string }).text;
      if (text) parts.push({ type: "text", text });
      return;
    }
    case "image": {
      const source = (block as Extract<AnthropicContentBlock, { type: "image" }>).source;
      if (source.type === "base64") parts.push({ type: "image", source: { kind: "base64", mediaType: source.media_type, data: source.data } });
      else if (source.type === "url") parts.push({ type: "image", source: { kind: "url", url: source.url } });
      else warnings.push("image given as an Anthropic file id was dropped");
      return;
    }
    default:
      warnings.push(`content block '${block.type}' was dropped`);
  }
}

/** Pushes the canonical part of an assistant block to `parts` (none for a block dropped). */
function assistantPart(block: AnthropicContentBlock, parts: ContentPart[], warnings: string[]): void {
  switch (block.type) {
    case "text": {
      const text = (block as { text: string }).text;
      if (text) parts.push({ type: "text", text });
      return;
    }
    case "tool_use": {
      const use = block as Extract<AnthropicContentBlock, { type: "tool_use" }>;
      parts.push({ type: "tool-call", id: use.id, name: use.name, arguments: JSON.stringify(use.input ?? {}) });
      return;
    }
    case "thinking": {
      const thinking = block as Extract<AnthropicContentBlock, { type: "thinking" }>;
      parts.push({ type: "reasoning", text: thinking.thinking, signature: thinking.signature });
      return;
    }
    case "redacted_thinking":
      return;
    default:
      warnings.push(`assistant block '${block.type}' was dropped`);
  }
}

function toolResult(block: Extract<AnthropicContentBlock, { type: "tool_result" }>, warnings: string[]): ContentPart {
  let content = "";
  if (typeof block.content === "string") content = block.content;
  else if (block.content) {
    content = block.content
      .map((part) => {
        if (part.type === "text") return String((part as { text?: unknown }).text ?? "");
        warnings.push(`tool_result block '${part.type}' was dropped`);
        return "";
      })
      .join("");
  }
  return { type: "tool-result", toolCallId: block.tool_use_id, content, isError: block.is_error };
}
