import http from "node:http";
import type { AddressInfo } from "node:net";

// A loopback OpenAI-compatible upstream that misbehaves on purpose. The fault is the
// model name's first dot-separated part (`stall-stream.openai.stream.solo`), so every
// test case can use a model of its own and never meet another case's cool-down.

export const FAULTS = ["http-500", "http-429", "reset", "no-headers", "stall-body", "stall-stream", "malformed-json", "malformed-sse"] as const;
export type Fault = (typeof FAULTS)[number] | "ok" | "http-401" | "flaky";

export interface FaultUpstream {
  baseUrl: string;
  /** Requests seen, by model. */
  calls: Map<string, number>;
  /** Open sockets the gateway abandoned (closed before the answer ended). */
  closedEarly: number;
  /** While true, every request is refused with 401 (a revoked key), whatever the model. */
  refusing: boolean;
  close(): Promise<void>;
}

const completion = (model: string, text: string) => ({
  id: "chatcmpl-fault",
  object: "chat.completion",
  created: 1_700_000_000,
  model,
  choices: [{ index: 0, message: { role: "assistant", content: text, refusal: null }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
});

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null, usage: unknown = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-fault", object: "chat.completion.chunk", created: 1_700_000_000, model, choices: usage ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage })}\n\n`;

/**
 * `reply` is what a healthy answer says; `healthy` ignores the model's fault (a fallback channel);
 * `delayMs` holds every answer back that long (a slower upstream); `hold` holds each answer
 * to a model until the promise it returns for the model settles (called once the request
 * is counted).
 */
export async function startFaultUpstream(
  apiKey: string,
  options: { reply?: string; healthy?: boolean; delayMs?: number; hold?: (model: string) => Promise<unknown> | undefined } = {},
): Promise<FaultUpstream> {
  const reply = options.reply ?? "ok from the faulty channel";
  const calls = new Map<string, number>();
  const sockets = new Set<import("node:net").Socket>();
  const state = { closedEarly: 0, refusing: false };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const part of request) chunks.push(part as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as { model: string; stream?: boolean };
    calls.set(body.model, (calls.get(body.model) ?? 0) + 1);
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    await options.hold?.(body.model);
    response.on("close", () => {
      if (!response.writableFinished) state.closedEarly += 1;
    });
    if (state.refusing || request.headers.authorization !== `Bearer ${apiKey}` || request.url !== "/v1/chat/completions") {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } }));
      return;
    }
    let fault = (options.healthy ? "ok" : body.model.split(".")[0]) as Fault;
    // One request in ten fails, in one of the ways that can still fail over.
    if (fault === "flaky") fault = Math.random() < 0.1 ? (["http-500", "reset", "malformed-json", "stall-body"] as const)[Math.floor(Math.random() * 4)]! : "ok";
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(JSON.stringify(value));
    };
    const sseHead = () => response.writeHead(200, { "content-type": "text/event-stream" });
    switch (fault) {
      case "http-500":
        return json(500, { error: { message: "The server had an error while processing your request.", type: "server_error", param: null, code: null } });
      case "http-429":
        return json(429, { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } }, { "retry-after": "30" });
      case "http-401":
        return json(401, { error: { message: "Incorrect API key provided: sk-up****.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
      case "reset":
        request.socket.destroy();
        return;
      case "no-headers":
        return; // never answers
      case "stall-body":
        if (body.stream) {
          sseHead();
          response.write('data: {"id":"chatcmpl-fault","obj'); // half an event, then silence
        } else {
          response.writeHead(200, { "content-type": "application/json" });
          response.write('{"id":"chatcmpl-fault","object":"chat.com');
        }
        return;
      case "stall-stream":
        if (body.stream) {
          sseHead();
          response.write(chunk(body.model, { role: "assistant", content: "" }));
          response.write(chunk(body.model, { content: "partial " }));
        } else {
          response.writeHead(200, { "content-type": "application/json" });
          response.write('{"id":"chatcmpl-fault",');
        }
        return;
      case "malformed-json":
        if (body.stream) {
          sseHead();
          response.end("this is not an event stream\n\n");
          return;
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end("<html>upstream proxy error</html>");
        return;
      case "malformed-sse":
        if (body.stream) {
          sseHead();
          response.end("data: {not json at all\n\n");
          return;
        }
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"id": "chatcmpl-fault", "choices": [');
        return;
      default:
        if (!body.stream) return json(200, completion(body.model, reply));
        sseHead();
        response.write(chunk(body.model, { role: "assistant", content: "" }));
        for (const word of reply.split(/(?<= )/)) response.write(chunk(body.model, { content: word }));
        response.write(chunk(body.model, {}, "stop"));
        response.write(chunk(body.model, {}, null, { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 }));
        response.end("data: [DONE]\n\n");
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls,
    get closedEarly() {
      return state.closedEarly;
    },
    get refusing() {
      return state.refusing;
    },
    set refusing(value: boolean) {
      state.refusing = value;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
