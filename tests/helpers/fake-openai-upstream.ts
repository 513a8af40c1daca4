import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseMultipart, serveOpenAIOperation, type ReceivedForm } from "./fake-openai-operations";
import { asksForTool, lastPromptText, requestedArguments, requestedTool } from "./scripted-turns";

// A loopback server speaking OpenAI's Chat Completions wire format, scripted by model
// name. It records every request so tests can check what the upstream received.

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** The body as it came, byte for byte (as UTF-8 text). */
  raw: string;
  /** Set when the client (the gateway) closed the connection before the response ended. */
  closedEarly: boolean;
}

export const UPSTREAM_API_KEY = "sk-upstream-secret-0123456789abcdef";
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "openai");

export interface FakeUpstream {
  baseUrl: string;
  received: ReceivedRequest[];
  /** Why each refused chat request would be refused by OpenAI too. */
  rejected: string[];
  close(): Promise<void>;
}

/**
 * The reason OpenAI would refuse a chat request with a 400, or undefined: the tool-call
 * pairing rules (every call answered by a tool message right after it, every tool
 * message answering a call), tool names, image URLs and token limits.
 */
export function openAIChatViolation(body: Record<string, any>): string | undefined {
  const messages = body.messages as Record<string, any>[] | undefined;
  if (!Array.isArray(messages) || messages.length === 0) return "'messages' must be a non-empty array";
  // OpenAI takes a prompt cache key on chat completions and responses alike: a string.
  if (body.prompt_cache_key !== undefined && typeof body.prompt_cache_key !== "string") return "Invalid type for 'prompt_cache_key': expected a string.";
  for (const field of ["max_tokens", "max_completion_tokens"]) {
    if (body[field] !== undefined && body[field] !== null && !(Number.isInteger(body[field]) && body[field] >= 1)) return `Invalid '${field}': integer below minimum value 1`;
  }
  for (const tool of body.tools ?? []) {
    if (tool.type !== "function" && tool.type !== "custom") return `Invalid value: '${tool.type}'. Supported values are: 'function' and 'custom'.`;
    if (tool.type === "function" && !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function?.name ?? ""))
      return `Invalid 'tools[].function.name': '${tool.function?.name}' does not match '^[a-zA-Z0-9_-]{1,64}$'`;
  }
  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (!open.includes(message.tool_call_id))
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages[${index}])`;
      open = open.filter((id) => id !== message.tool_call_id);
      continue;
    }
    if (open.length > 0)
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`;
    if (!["system", "developer", "user", "assistant", "function"].includes(message.role)) return `Invalid value: '${message.role}' at messages[${index}].role`;
    if (message.role === "assistant") open = (message.tool_calls ?? []).map((call: { id: string }) => call.id);
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (part.type === "image_url" && !/^(https?:|data:image\/[a-z+.-]+;base64,)/.test(part.image_url?.url ?? ""))
        return `Invalid 'messages[${index}].content[].image_url.url': expected a URL or a base64 data URL`;
    }
  }
  if (open.length > 0)
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(", ")}`;
  return undefined;
}

type Message = { role: string; content: unknown };

function lastUserText(body: Record<string, unknown>): string {
  const messages = (body.messages as Message[]) ?? [];
  const last = [...messages].reverse().find((message) => message.role === "user");
  if (!last) return "";
  return typeof last.content === "string" ? last.content : (last.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");
}

function chunk(model: string, delta: Record<string, unknown>, finishReason: string | null = null) {
  return { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_001, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] };
}

/** The scripted turns (scripted-turns.ts): a tool call, the answer to a tool's result. */
function scriptedReply(body: Record<string, any>): { message: { content: string | null; tool_calls?: Record<string, unknown>[] }; finish: string } | undefined {
  const messages = body.messages as { role: string; content?: unknown }[];
  const prompt = lastPromptText(messages);
  const last = messages.at(-1)!;
  if (last.role === "tool" && asksForTool(prompt)) return { message: { content: `Tool said: ${String(last.content)}` }, finish: "stop" };
  const tool =
    last.role === "user"
      ? requestedTool(
          prompt,
          (body.tools ?? []).map((entry: any) => entry.function?.name ?? entry.name),
        )
      : undefined;
  if (!tool) return undefined;
  return {
    message: { content: null, tool_calls: [{ id: "call_fake_chat1", type: "function", function: { name: tool, arguments: JSON.stringify(requestedArguments(prompt)) } }] },
    finish: "tool_calls",
  };
}

export async function startFakeOpenAIUpstream(): Promise<FakeUpstream> {
  const received: ReceivedRequest[] = [];
  const rejected: string[] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const part of request) chunks.push(part as Buffer);
    const raw = Buffer.concat(chunks);
    const contentType = request.headers["content-type"] ?? "";
    const body = contentType.startsWith("multipart/form-data")
      ? ((await parseMultipart(contentType, raw)) as unknown as Record<string, unknown>)
      : chunks.length
        ? JSON.parse(raw.toString("utf8"))
        : {};
    if (contentType.startsWith("multipart/form-data")) body.model = (body as unknown as ReceivedForm).fields.find(([name]) => name === "model")?.[1];
    const record: ReceivedRequest = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, body, raw: raw.toString("utf8"), closedEarly: false };
    received.push(record);
    response.on("close", () => {
      if (!response.writableFinished) record.closedEarly = true;
    });

    if (request.headers.authorization !== `Bearer ${UPSTREAM_API_KEY}`) {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${request.headers.authorization}.`, type: "invalid_request_error", param: null, code: "invalid_api_key" },
        }),
      );
      return;
    }
    if (request.method === "GET" && request.url === "/v1/models") {
      response.writeHead(200, { "content-type": "application/json" });
      const ids = ["fake-upstream-model", "fake-error", "gpt-4o-mini"];
      response.end(JSON.stringify({ object: "list", data: ids.map((id) => ({ id, object: "model", created: 1_700_000_000, owned_by: "fake" })) }));
      return;
    }
    if (!(request.url ?? "").startsWith("/v1/")) {
      // What OpenAI answers for a path it does not serve (a base URL without /v1).
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `Invalid URL (${request.method} ${request.url})`, type: "invalid_request_error", param: null, code: null } }));
      return;
    }
    if (!body.model) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "you must provide a model parameter", type: "invalid_request_error", param: null, code: null } }));
      return;
    }
    if (serveOpenAIOperation(request.url ?? "", body, response)) return;
    if (request.url !== "/v1/chat/completions") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `Invalid URL (${request.method} ${request.url})`, type: "invalid_request_error", param: null, code: null } }));
      return;
    }
    const violation = openAIChatViolation(body);
    if (violation) {
      rejected.push(violation);
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: violation, type: "invalid_request_error", param: "messages", code: null } }));
      return;
    }
    const model = String(body.model);
    const stream = body.stream === true;
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;

    if (model === "fake-error") {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: {
            message: `This model's maximum context length is 16 tokens; the key ${UPSTREAM_API_KEY} sent 20.`,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        }),
      );
      return;
    }
    if (model === "fake-server-error") {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { message: "The server had an error while processing your request. Sorry about that!", type: "server_error", param: null, code: null } }),
      );
      return;
    }
    if (model === "fake-small-context") {
      // What OpenAI answers for a prompt over the model's context window.
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: {
            message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9120 tokens. Please reduce the length of the messages.",
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        }),
      );
      return;
    }
    if (model === "fake-missing") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: "invalid_request_error", param: null, code: "model_not_found" },
        }),
      );
      return;
    }
    if (model === "fake-rate-limited") {
      // As OpenAI answers a request over its rate limit.
      response.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
      response.end(JSON.stringify({ error: { message: "Rate limit reached for requests. Please try again in 2s.", type: "requests", param: null, code: "rate_limit_exceeded" } }));
      return;
    }
    if (model === "fake-overloaded") {
      response.writeHead(503, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "The server is overloaded.", type: "server_error", param: null, code: null } }));
      return;
    }
    if (model === "fake-slow") {
      await sleep(3000);
      if (!response.destroyed) response.end("{}");
      return;
    }
    if (model === "fake-midstream-error") {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(`data: ${JSON.stringify(chunk(model, { role: "assistant", content: "Partial" }))}\n\n`);
      response.end(`data: ${JSON.stringify({ error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } })}\n\n`);
      return;
    }
    if (model === "fake-tools") {
      if (stream) {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(fs.readFileSync(path.join(FIXTURES, "stream-tool-calls.chunks.txt")));
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(fs.readFileSync(path.join(FIXTURES, "completion-tool-calls.json")));
      }
      return;
    }

    const scripted = scriptedReply(body);
    if (scripted && !stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: 1_700_000_001,
          model,
          choices: [{ index: 0, message: { role: "assistant", refusal: null, annotations: [], ...scripted.message }, logprobs: null, finish_reason: scripted.finish }],
          usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 },
        }),
      );
      return;
    }
    if (scripted) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      const delta = scripted.message.tool_calls
        ? { role: "assistant", content: null, tool_calls: scripted.message.tool_calls.map((call, index) => ({ index, ...call })) }
        : { role: "assistant", content: scripted.message.content };
      response.write(`data: ${JSON.stringify(chunk(model, delta))}\n\n`);
      response.write(`data: ${JSON.stringify(chunk(model, {}, scripted.finish))}\n\n`);
      if (includeUsage)
        response.write(
          `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_001, model, choices: [], usage: { prompt_tokens: 20, completion_tokens: 6, total_tokens: 26 } })}\n\n`,
        );
      response.end("data: [DONE]\n\n");
      return;
    }

    const words = `Echo: ${lastUserText(body)}`.match(/\S+\s*/g) ?? [];
    const withUsage = model !== "fake-no-usage";
    const usage = {
      prompt_tokens: 11,
      completion_tokens: words.length,
      total_tokens: 11 + words.length,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 0 },
    };
    if (!stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "chatcmpl-fake",
          object: "chat.completion",
          created: 1_700_000_001,
          model,
          system_fingerprint: "fp_fake",
          choices: [{ index: 0, message: { role: "assistant", content: words.join(""), refusal: null, annotations: [] }, logprobs: null, finish_reason: "stop" }],
          ...(withUsage ? { usage } : {}),
          echo_unknown_field: body.custom_field ?? null,
        }),
      );
      return;
    }
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (value: unknown) => response.write(`data: ${JSON.stringify(value)}\n\n`);
    const extra = includeUsage ? { usage: null } : {};
    send({ ...chunk(model, { role: "assistant", content: "" }), ...extra });
    const delay = model === "fake-slow-stream" ? 100 : 0;
    const repeat = model === "fake-slow-stream" ? 100 : 1;
    for (let round = 0; round < repeat; round += 1) {
      for (const word of words) {
        if (response.destroyed) return;
        if (delay) await sleep(delay);
        send({ ...chunk(model, { content: word }), ...extra });
      }
    }
    send({ ...chunk(model, {}, "stop"), ...extra });
    if (includeUsage && withUsage) send({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_001, model, choices: [], usage });
    response.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    rejected,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
