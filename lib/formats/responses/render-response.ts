import { randomBytes } from "node:crypto";
import type { ChatResponse } from "@/lib/canonical/collect-response";
import type { FinishReason } from "@/lib/canonical/finish-reason";
import { toolArgumentsObject } from "@/lib/canonical/json";
import type { Usage } from "@/lib/canonical/usage";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import { CUSTOM_TOOL_ARGUMENT } from "./parse-tools";
import type { ResponsesRequest } from "./schema";
import { clientToolNames, type ToolTable } from "./tool-names";

// Canonical answers as Responses API objects: the response envelope, its output items
// and its usage, the same for whole answers and for the snapshots streams carry.

export interface ResponseEnvelope {
  id: string;
  createdAt: number;
  /** The model the client asked for (answers name it, not the upstream's). */
  model: string;
  body: ResponsesRequest;
  tools: ToolTable;
}

export type OutputItem = Record<string, unknown> & { type: string; id: string };

export const newId = (prefix: string) => `${prefix}_${randomBytes(24).toString("hex")}`;

export function newEnvelope(model: string, body: ResponsesRequest, tools: ToolTable): ResponseEnvelope {
  return { id: newId("resp"), createdAt: Math.floor(Date.now() / 1000), model, body, tools };
}

export function renderUsage(usage: Usage | undefined) {
  if (!usage) return null;
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

const INCOMPLETE: Partial<Record<FinishReason, string>> = { length: "max_output_tokens", "content-filter": "content_filter" };

export function statusFor(reason: FinishReason): { status: "completed" | "incomplete"; incomplete_details: { reason: string } | null } {
  const incomplete = INCOMPLETE[reason];
  return incomplete ? { status: "incomplete", incomplete_details: { reason: incomplete } } : { status: "completed", incomplete_details: null };
}

/** The response object; `status` in_progress with no output opens a stream. */
export function responseObject(
  envelope: ResponseEnvelope,
  state: { status: string; output: OutputItem[]; usage?: Usage; incomplete_details?: { reason: string } | null; error?: unknown },
) {
  const { body } = envelope;
  return {
    id: envelope.id,
    object: "response",
    created_at: envelope.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details: state.incomplete_details ?? null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: body.metadata ?? {},
    model: envelope.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: renderUsage(state.usage),
    user: body.user ?? null,
  };
}

export function reasoningItem(id: string, text: string): OutputItem {
  return { type: "reasoning", id, summary: text ? [{ type: "summary_text", text }] : [] };
}

export type UrlCitation = { type: "url_citation"; url: string; title: string; start_index: number; end_index: number };

export function messageItem(id: string, text: string, status = "completed", annotations: UrlCitation[] = []): OutputItem {
  return { type: "message", id, status, role: "assistant", content: [{ type: "output_text", text, annotations, logprobs: [] }] };
}

/** A citation as an annotation of a message whose text starts at `offset` of all the answer's text. */
export function urlCitation(citation: Extract<StreamEvent, { type: "citation" }>, offset: number, length: number): UrlCitation {
  const clamp = (index: number) => Math.min(Math.max(index - offset, 0), length);
  return { type: "url_citation", url: citation.url, title: citation.title ?? citation.url, start_index: clamp(citation.start), end_index: clamp(citation.end) };
}

/** A hosted web search the upstream ran, as OpenAI reports its own. */
export function webSearchItem(search: Extract<StreamEvent, { type: "web-search" }>, status: string = search.status): OutputItem {
  const action: Record<string, unknown> = { type: "search", query: search.queries[0] ?? "" };
  if (search.queries.length > 1) action.queries = search.queries;
  if (search.sources.length > 0) action.sources = search.sources.map((source) => ({ type: "url", url: source.url }));
  return { type: "web_search_call", id: `ws_${search.id.replace(/[^a-zA-Z0-9]/g, "").slice(-40) || newId("ws").slice(3)}`, status, action };
}

/** A tool call: a function_call, or a custom_tool_call for tools declared as custom; a namespaced tool's call names its namespace. */
export function toolCallItem(envelope: ResponseEnvelope, call: { id: string; name: string; arguments: string }, status = "completed"): OutputItem {
  const { name, namespace, custom } = clientToolNames(envelope.tools, call.name);
  const scope = namespace ? { namespace } : {};
  if (custom) {
    const input = toolArgumentsObject(call.arguments)[CUSTOM_TOOL_ARGUMENT];
    return { type: "custom_tool_call", id: newId("ctc"), status, call_id: call.id, ...scope, name, input: typeof input === "string" ? input : call.arguments };
  }
  return { type: "function_call", id: newId("fc"), status, call_id: call.id, ...scope, name, arguments: call.arguments };
}

/** A whole canonical answer as a Responses API object. */
export function renderResponse(envelope: ResponseEnvelope, response: ChatResponse) {
  const output: OutputItem[] = [];
  if (response.reasoning) output.push(reasoningItem(newId("rs"), response.reasoning));
  for (const search of response.webSearches) output.push(webSearchItem(search));
  if (response.text || response.toolCalls.length === 0) {
    const annotations = response.citations.map((citation) => urlCitation(citation, 0, response.text.length));
    output.push(messageItem(newId("msg"), response.text, "completed", annotations));
  }
  for (const call of response.toolCalls) output.push(toolCallItem(envelope, call));
  return responseObject(envelope, { ...statusFor(response.finishReason), output, usage: response.usage });
}
