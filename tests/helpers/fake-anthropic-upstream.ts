import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { lastUserText, startFakeServer, words, type FakeServer, type ReceivedRequest } from "./fake-upstream-server";
import { asksForTool, lastPromptText, requestedArguments, requestedTool, SEARCH_ANSWER, SEARCH_PAGE, SEARCH_QUERY, wantsSearch } from "./scripted-turns";

// A loopback Anthropic Messages API. It rejects what the real API rejects (missing
// max_tokens, system inside messages, empty text blocks, tool_use without a following
// tool_result...) so tests prove the gateway sends valid native requests.

export const ANTHROPIC_KEY = "sk-ant-upstream-key-0123456789";
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "anthropic");

function fail(response: http.ServerResponse, status: number, type: string, message: string) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ type: "error", error: { type, message }, request_id: "req_fake" }));
}

/**
 * The reason a request is invalid for the real API, or undefined. System messages inside
 * `messages` are taken only with the beta that allows them (Claude Code sends it).
 */
export function anthropicViolation(body: any, betas: string[] = []): string | undefined {
  const systemMessages = betas.some((beta) => beta.startsWith("mid-conversation-system-"));
  if (!Number.isInteger(body?.max_tokens) || body.max_tokens < 0) return "max_tokens: Field required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required";
  if (body.temperature !== undefined && (body.temperature < 0 || body.temperature > 1)) return "temperature: must be within [0, 1]";
  for (const [index, message] of body.messages.entries()) {
    if (message.role === "system" && systemMessages && index > 0) continue;
    if (message.role !== "user" && message.role !== "assistant") return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type === "text" && !block.text) return "messages: text content blocks must be non-empty";
      if ((block.type === "tool_use" && !/^[a-zA-Z0-9_-]+$/.test(block.id)) || (block.type === "tool_result" && !/^[a-zA-Z0-9_-]+$/.test(block.tool_use_id))) {
        return "tool ids must match ^[a-zA-Z0-9_-]+$";
      }
      if (block.type === "tool_use" && (typeof block.input !== "object" || block.input === null)) return "tool_use.input must be an object";
    }
    const uses = blocks.filter((block: any) => block.type === "tool_use").map((block: any) => block.id);
    if (uses.length > 0) {
      const next = body.messages[index + 1];
      const results = next && typeof next.content !== "string" ? next.content.filter((block: any) => block.type === "tool_result").map((block: any) => block.tool_use_id) : [];
      if (!uses.every((id: string) => results.includes(id))) return "`tool_use` ids were found without `tool_result` blocks immediately after";
    }
  }
  for (const [index, tool] of (body.tools ?? []).entries()) {
    const violation = toolViolation(tool, `tools.${index}`);
    if (violation) return violation;
  }
  const choice = body.tool_choice;
  if (choice?.type === "tool" && !(body.tools ?? []).some((tool: any) => tool.name === choice.name)) return `tool_choice: tool '${choice.name}' not found in tools`;
  if (body.thinking?.type === "enabled" && !(body.thinking.budget_tokens >= 1024 && body.thinking.budget_tokens < body.max_tokens))
    return "thinking.budget_tokens must be >= 1024 and < max_tokens";
  return undefined;
}

// Server tools the API knows, by type; client tools have no type (or `custom`).
const SERVER_TOOLS: Record<string, string[]> = {
  web_search_20250305: ["type", "name", "max_uses", "allowed_domains", "blocked_domains", "user_location", "cache_control"],
};
const LOCATION_FIELDS = ["type", "city", "region", "country", "timezone"];

function toolViolation(tool: any, where: string): string | undefined {
  if (tool.type === undefined || tool.type === "custom") {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name ?? "")) return `${where}.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (!tool.input_schema) return `${where}.input_schema: Field required`;
    return undefined;
  }
  const fields = SERVER_TOOLS[tool.type];
  if (!fields) return `${where}: Input tag '${tool.type}' found using 'type' does not match any of the expected tags`;
  for (const key of Object.keys(tool)) if (!fields.includes(key)) return `${where}.${key}: Extra inputs are not permitted`;
  if (tool.type.startsWith("web_search")) {
    if (tool.name !== "web_search") return `${where}.name: Input should be 'web_search'`;
    if (tool.allowed_domains && tool.blocked_domains) return `${where}: Only one of allowed_domains and blocked_domains can be set`;
    const location = tool.user_location;
    if (location && (location.type !== "approximate" || Object.keys(location).some((key) => !LOCATION_FIELDS.includes(key)))) return `${where}.user_location: invalid`;
  }
  return undefined;
}

function sse(response: http.ServerResponse, type: string, data: Record<string, unknown>) {
  response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

async function handle(request: ReceivedRequest, response: http.ServerResponse, server: FakeServer) {
  if (request.headers["x-api-key"] !== ANTHROPIC_KEY) return fail(response, 401, "authentication_error", "invalid x-api-key");
  if (!/^\d{4}-\d{2}-\d{2}$/.test(String(request.headers["anthropic-version"]))) return fail(response, 400, "invalid_request_error", "anthropic-version header required");
  const body = request.body;
  if (request.path === "/v1/messages/count_tokens") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ input_tokens: 4242 }));
    return;
  }
  if (request.path !== "/v1/messages") return fail(response, 404, "not_found_error", "not found");
  const violation = anthropicViolation(
    body,
    String(request.headers["anthropic-beta"] ?? "")
      .split(",")
      .map((beta) => beta.trim()),
  );
  if (violation) {
    server.rejected.push(violation);
    return fail(response, 400, "invalid_request_error", violation);
  }
  const model = String(body.model);
  if (model === "claude-overloaded") return fail(response, 529, "overloaded_error", "Overloaded");
  if (model === "claude-server-error") return fail(response, 500, "api_error", "Internal server error");
  // What Anthropic answers for a prompt over the model's context window.
  if (model === "claude-small-context") return fail(response, 400, "invalid_request_error", "prompt is too long: 215563 tokens > 200000 maximum");
  if (model === "claude-midstream-error") {
    response.writeHead(200, { "content-type": "text/event-stream" });
    sse(response, "message_start", {
      message: { id: "msg_fake02", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } },
    });
    sse(response, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    sse(response, "content_block_delta", { index: 0, delta: { type: "text_delta", text: "Partial" } });
    sse(response, "error", { error: { type: "overloaded_error", message: "Overloaded" } });
    response.end();
    return;
  }
  if (model === "claude-tools") {
    if (body.stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(fs.readFileSync(path.join(FIXTURES, "stream-thinking-text-tool.sse")));
    } else {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(fs.readFileSync(path.join(FIXTURES, "message-tool-use.json")));
    }
    return;
  }
  if (scriptedTurn(body, response)) return;
  // max_tokens 0 writes the prompt cache and generates nothing.
  const reply = body.max_tokens === 0 ? [] : words(`Echo: ${lastUserText(body.messages)}`);
  const usage = { input_tokens: 21, cache_creation_input_tokens: body.max_tokens === 0 ? 1200 : 0, cache_read_input_tokens: 5, output_tokens: reply.length };
  const stopReason = body.max_tokens === 0 ? "max_tokens" : "end_turn";
  if (!body.stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id: "msg_fake01",
        type: "message",
        role: "assistant",
        model,
        content: reply.length > 0 ? [{ type: "text", text: reply.join("") }] : [],
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream" });
  sse(response, "message_start", {
    message: { id: "msg_fake01", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
  });
  sse(response, "ping", {});
  if (reply.length > 0) {
    sse(response, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    for (const word of reply) sse(response, "content_block_delta", { index: 0, delta: { type: "text_delta", text: word } });
    sse(response, "content_block_stop", { index: 0 });
  }
  // Like Bedrock: only output_tokens in message_delta; input comes from message_start.
  sse(response, "message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: reply.length } });
  sse(response, "message_stop", {});
  response.end();
}

/** The scripted turns (scripted-turns.ts): a tool call, a web search, the answer to a tool's result. */
function scriptedTurn(body: any, response: http.ServerResponse): boolean {
  const last = body.messages.at(-1);
  const prompt = lastPromptText(body.messages);
  const result = Array.isArray(last.content) && asksForTool(prompt) ? last.content.find((block: any) => block.type === "tool_result") : undefined;
  const clientTools = (body.tools ?? []).filter((tool: any) => tool.type === undefined || tool.type === "custom").map((tool: any) => tool.name);
  const tool = result ? undefined : requestedTool(prompt, clientTools);
  const search = !result && !tool && wantsSearch(prompt) && (body.tools ?? []).some((entry: any) => entry.type === "web_search_20250305");
  let blocks: any[];
  if (result) {
    const output = typeof result.content === "string" ? result.content : result.content.map((block: any) => block.text ?? "").join("");
    blocks = [{ type: "text", text: `Tool said: ${output}` }];
  } else if (tool) blocks = [{ type: "tool_use", id: "toolu_fake_call1", name: tool, input: requestedArguments(prompt) }];
  else if (search) {
    blocks = [
      { type: "text", text: "Let me search. " },
      { type: "server_tool_use", id: "srvtoolu_fake1", name: "web_search", input: { query: SEARCH_QUERY } },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_fake1",
        content: [{ type: "web_search_result", url: SEARCH_PAGE.url, title: SEARCH_PAGE.title, encrypted_content: "ZmFrZQ==", page_age: null }],
      },
      {
        type: "text",
        text: SEARCH_ANSWER,
        citations: [{ type: "web_search_result_location", url: SEARCH_PAGE.url, title: SEARCH_PAGE.title, encrypted_index: "ZmFrZQ==", cited_text: SEARCH_ANSWER }],
      },
    ];
  } else return false;
  const stopReason = tool ? "tool_use" : "end_turn";
  const usage = { input_tokens: 30, output_tokens: 12, ...(search ? { server_tool_use: { web_search_requests: 1 } } : {}) };
  const message = { id: "msg_fake03", type: "message", role: "assistant", model: body.model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage };
  if (!body.stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(message));
    return true;
  }
  response.writeHead(200, { "content-type": "text/event-stream" });
  sse(response, "message_start", { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  blocks.forEach((block, index) => {
    if (block.type === "text") {
      sse(response, "content_block_start", { index, content_block: { type: "text", text: "", ...(block.citations ? { citations: [] } : {}) } });
      for (const citation of block.citations ?? []) sse(response, "content_block_delta", { index, delta: { type: "citations_delta", citation } });
      for (const word of words(block.text)) sse(response, "content_block_delta", { index, delta: { type: "text_delta", text: word } });
    } else if (block.type === "tool_use" || block.type === "server_tool_use") {
      sse(response, "content_block_start", { index, content_block: { ...block, input: {} } });
      sse(response, "content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
    } else sse(response, "content_block_start", { index, content_block: block });
    sse(response, "content_block_stop", { index });
  });
  sse(response, "message_delta", { delta: { stop_reason: stopReason, stop_sequence: null }, usage });
  sse(response, "message_stop", {});
  response.end();
  return true;
}

export async function startFakeAnthropicUpstream() {
  const server = await startFakeServer(handle);
  return { ...server, baseUrl: `${server.origin}/v1` };
}
