import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { lastUserText, startFakeServer, words, type FakeServer, type ReceivedRequest } from "./fake-upstream-server";

// A loopback Anthropic Messages API. It rejects what the real API rejects (missing
// max_tokens, system inside messages, empty text blocks, tool_use without a following
// tool_result...) so tests prove the gateway sends valid native requests.

export const ANTHROPIC_KEY = "sk-ant-upstream-key-0123456789";
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "anthropic");

function fail(response: http.ServerResponse, status: number, type: string, message: string) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ type: "error", error: { type, message }, request_id: "req_fake" }));
}

/** The reason a request is invalid for the real API, or undefined. */
export function anthropicViolation(body: any): string | undefined {
  if (!Number.isInteger(body?.max_tokens) || body.max_tokens < 0) return "max_tokens: Field required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages: Field required";
  if (body.temperature !== undefined && (body.temperature < 0 || body.temperature > 1)) return "temperature: must be within [0, 1]";
  for (const [index, message] of body.messages.entries()) {
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
  // Client tools need a schema; server tools (`web_search_20250305`...) are named by their type.
  for (const tool of body.tools ?? []) if ((tool.type === undefined || tool.type === "custom") && !tool.input_schema) return "tools.input_schema: Field required";
  if (body.thinking && !(body.thinking.budget_tokens >= 1024 && body.thinking.budget_tokens < body.max_tokens)) return "thinking.budget_tokens must be >= 1024 and < max_tokens";
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
  const violation = anthropicViolation(body);
  if (violation) {
    server.rejected.push(violation);
    return fail(response, 400, "invalid_request_error", violation);
  }
  const model = String(body.model);
  if (model === "claude-overloaded") return fail(response, 529, "overloaded_error", "Overloaded");
  if (model === "claude-midstream-error") {
    response.writeHead(200, { "content-type": "text/event-stream" });
    sse(response, "message_start", { message: { id: "msg_fake02", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } } });
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
  // max_tokens 0 writes the prompt cache and generates nothing.
  const reply = body.max_tokens === 0 ? [] : words(`Echo: ${lastUserText(body.messages)}`);
  const usage = { input_tokens: 21, cache_creation_input_tokens: body.max_tokens === 0 ? 1200 : 0, cache_read_input_tokens: 5, output_tokens: reply.length };
  const stopReason = body.max_tokens === 0 ? "max_tokens" : "end_turn";
  if (!body.stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({
      id: "msg_fake01", type: "message", role: "assistant", model, content: reply.length > 0 ? [{ type: "text", text: reply.join("") }] : [],
      stop_reason: stopReason, stop_sequence: null, usage,
    }));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream" });
  sse(response, "message_start", { message: { id: "msg_fake01", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
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

export async function startFakeAnthropicUpstream() {
  const server = await startFakeServer(handle);
  return { ...server, baseUrl: `${server.origin}/v1` };
}
