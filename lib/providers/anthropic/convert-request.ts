import type { ChatRequest, ContentPart, HostedTool, Message, ToolChoice } from "@/lib/canonical/request";
import { anthropicToolId } from "@/lib/formats/anthropic/ids";
import { toolArgumentsObject } from "@/lib/canonical/json";
import { maxOutputTokens } from "./model-limits";

// Canonical request -> Anthropic Messages body.

const EFFORT_BUDGET = { minimal: 1024, low: 1024, medium: 2048, high: 4096 } as const;
const MIN_BUDGET = 1024;

type Block = Record<string, unknown>;
type Turn = { role: "user" | "assistant"; content: Block[] };

export function toAnthropicBody(request: ChatRequest, upstreamModel: string, defaultMaxTokens: number, warnings: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = { model: upstreamModel, messages: toTurns(request.messages, warnings) };
  if (request.system) body.system = request.system;
  if (request.responseFormat) {
    // Anthropic has no response format: the instruction travels in the system prompt.
    const schema = request.responseFormat.schema ? ` matching this JSON Schema:\n${JSON.stringify(request.responseFormat.schema)}` : "";
    body.system = `${request.system ? `${request.system}\n\n` : ""}Answer with a single JSON value and nothing else${schema}`;
    warnings.push("response format given to Anthropic as an instruction in the system prompt (not enforced)");
  }

  let budget: number | undefined;
  if (request.reasoning) {
    budget = Math.max(MIN_BUDGET, request.reasoning.budgetTokens ?? EFFORT_BUDGET[request.reasoning.effort ?? "medium"]);
    // With thinking on, every assistant tool_use turn must open with its signed thinking
    // block; history from other clients has none, so thinking is turned off instead.
    const turns = body.messages as Turn[];
    const unsigned = turns.some((turn) => turn.role === "assistant" && turn.content.some((block) => block.type === "tool_use") && turn.content[0]?.type !== "thinking");
    if (unsigned) {
      warnings.push("thinking disabled: the history has tool calls without their signed thinking blocks");
      budget = undefined;
    }
  }
  const limit = maxOutputTokens(upstreamModel);
  let maxTokens = request.maxTokens ?? defaultMaxTokens;
  // Thinking counts toward max_tokens, which must exceed the budget.
  if (budget !== undefined && maxTokens <= budget) maxTokens = budget + Math.min(request.maxTokens ?? 4096, 4096);
  if (limit !== undefined && maxTokens > limit) {
    if (request.maxTokens !== undefined) warnings.push(`max_tokens ${maxTokens} clamped to ${limit}, the limit of ${upstreamModel}`);
    maxTokens = limit;
    if (budget !== undefined && budget >= limit) budget = Math.max(MIN_BUDGET, limit - 1024);
  }
  body.max_tokens = maxTokens;
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };

  if (request.temperature !== undefined) {
    if (budget !== undefined) warnings.push("temperature dropped: Anthropic requires the default temperature with thinking");
    else if (request.temperature > 1) {
      warnings.push(`temperature ${request.temperature} clamped to 1, Anthropic's maximum`);
      body.temperature = 1;
    } else body.temperature = request.temperature;
  }
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) body.top_k = request.topK;
  if (request.stop?.length) body.stop_sequences = request.stop;
  const serverTools = (request.hostedTools ?? []).flatMap((tool) => (tool.kind === "web-search" ? [webSearchTool(tool, warnings)] : []));
  if (request.tools?.length || serverTools.length) {
    body.tools = [
      ...(request.tools ?? []).map((tool) => ({
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        input_schema: tool.parameters && Object.keys(tool.parameters).length ? tool.parameters : { type: "object", properties: {} },
      })),
      ...serverTools,
    ];
    const choice = toolChoice(request.toolChoice, budget !== undefined, warnings);
    if (choice || request.parallelToolCalls === false) {
      body.tool_choice = { ...(choice ?? { type: "auto" }), ...(request.parallelToolCalls === false ? { disable_parallel_tool_use: true } : {}) };
    }
  } else if (request.toolChoice && request.toolChoice.type !== "none" && request.toolChoice.type !== "auto") {
    warnings.push("tool_choice dropped: no tools were given");
  }
  if (request.user) body.metadata = { user_id: request.user };
  body.stream = request.stream;
  return body;
}

function toolChoice(choice: ToolChoice | undefined, thinking: boolean, warnings: string[]): Record<string, unknown> | undefined {
  if (!choice) return undefined;
  if (thinking && (choice.type === "required" || choice.type === "tool")) {
    warnings.push("forced tool choice downgraded to auto: Anthropic rejects it with thinking");
    return { type: "auto" };
  }
  switch (choice.type) {
    case "auto":
      return { type: "auto" };
    case "none":
      return { type: "none" };
    case "required":
      return { type: "any" };
    case "tool":
      return { type: "tool", name: choice.name };
    case "hosted":
      return { type: "tool", name: WEB_SEARCH_NAME };
  }
}

/** The name Anthropic's web search server tool goes by (and its calls come back under). */
export const WEB_SEARCH_NAME = "web_search";

/**
 * A Responses web_search tool as Anthropic's web search server tool: allowed domains and
 * the user's approximate location carry over; OpenAI's cache-only mode has no equivalent.
 */
function webSearchTool(tool: HostedTool, warnings: string[]): Record<string, unknown> {
  const options = tool.options as { filters?: { allowed_domains?: string[] | null } | null; user_location?: Record<string, unknown> | null; external_web_access?: boolean };
  const server: Record<string, unknown> = { type: "web_search_20250305", name: WEB_SEARCH_NAME };
  const domains = options.filters?.allowed_domains;
  if (domains?.length) server.allowed_domains = domains;
  const location = options.user_location;
  if (location) {
    const { type: _type, ...fields } = location;
    const known = Object.fromEntries(Object.entries(fields).filter(([key, value]) => ["city", "region", "country", "timezone"].includes(key) && typeof value === "string"));
    if (Object.keys(known).length) server.user_location = { type: "approximate", ...known };
  }
  if (options.external_web_access === false) warnings.push("web_search external_web_access=false not honoured: Anthropic's web search always searches live");
  return server;
}

/** Alternating user/assistant turns; tool results go first in the following user turn. */
function toTurns(messages: Message[], warnings: string[]): Turn[] {
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) {
      // Keep tool results ahead of text in a merged user turn.
      const results = blocks.filter((block) => block.type === "tool_result");
      const rest = blocks.filter((block) => block.type !== "tool_result");
      const lastResults = last.content.filter((block) => block.type === "tool_result");
      const lastRest = last.content.filter((block) => block.type !== "tool_result");
      last.content = [...lastResults, ...results, ...lastRest, ...rest];
    } else turns.push({ role, content: blocks });
  };
  for (const message of messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    push(
      role,
      message.content.flatMap((part) => toBlocks(part, role, warnings)),
    );
  }
  answerDanglingToolCalls(turns, warnings);
  if (turns[0]?.role === "assistant") turns.unshift({ role: "user", content: [{ type: "text", text: "..." }] });
  // An assistant turn of only thinking is rejected; an empty history is too.
  if (turns.length === 0) turns.push({ role: "user", content: [{ type: "text", text: "..." }] });
  return turns;
}

/**
 * Anthropic rejects a tool_use that the next user turn does not answer; clients of
 * other formats sometimes leave calls unanswered, so an error result stands in.
 */
function answerDanglingToolCalls(turns: Turn[], warnings: string[]): void {
  for (let index = 0; index < turns.length; index += 1) {
    const turn = turns[index]!;
    if (turn.role !== "assistant") continue;
    const ids = turn.content.filter((block) => block.type === "tool_use").map((block) => block.id as string);
    if (ids.length === 0) continue;
    let next = turns[index + 1];
    if (next?.role !== "user") {
      next = { role: "user", content: [] };
      turns.splice(index + 1, 0, next);
    }
    const answered = new Set(next.content.filter((block) => block.type === "tool_result").map((block) => block.tool_use_id));
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    warnings.push(`${missing.length} tool call(s) had no result; an error result was sent in their place`);
    next.content.unshift(...missing.map((id) => ({ type: "tool_result", tool_use_id: id, content: "No result was provided for this tool call.", is_error: true })));
  }
}

function toBlocks(part: ContentPart, role: Turn["role"], warnings: string[]): Block[] {
  switch (part.type) {
    case "text":
      return part.text ? [{ type: "text", text: part.text }] : [];
    case "image":
      if (role === "assistant") return [];
      return [
        {
          type: "image",
          source: part.source.kind === "base64" ? { type: "base64", media_type: part.source.mediaType, data: part.source.data } : { type: "url", url: part.source.url },
        },
      ];
    case "tool-call":
      return [{ type: "tool_use", id: anthropicToolId(part.id), name: part.name, input: toolArgumentsObject(part.arguments) }];
    case "tool-result":
      return [
        {
          type: "tool_result",
          tool_use_id: anthropicToolId(part.toolCallId),
          content: part.content,
          ...(part.isError ? { is_error: true } : {}),
        },
      ];
    case "reasoning":
      // Only signed thinking can be replayed to Anthropic.
      if (part.signature) return [{ type: "thinking", thinking: part.text, signature: part.signature }];
      if (part.text) warnings.push("unsigned reasoning from the history was not sent to Anthropic");
      return [];
  }
}
