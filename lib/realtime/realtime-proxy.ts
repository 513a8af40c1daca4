import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer, type RawData } from "ws";
import { authenticateToken } from "@/lib/auth/authenticate-token";
import { bearerToken } from "@/lib/canonical/bearer-token";
import { GatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";
import { env } from "@/lib/env";
import { openAIErrorBody } from "@/lib/formats/openai/render-error";
import { RequestLog } from "@/lib/gateway/request-log";
import { logger } from "@/lib/logger";
import { runCall } from "@/lib/gateway/call-pipeline";
import type { RealtimeSocket } from "@/lib/providers/provider";
import { checkHops, HOPS_HEADER } from "@/lib/net/loop-guard";
import type { Runtime } from "@/lib/runtime";

// GET /v1/realtime?model=...: a WebSocket to the client, proxied both ways to the
// channel's realtime WebSocket. The caller authenticates with the Bearer header or, from
// browsers, the `openai-insecure-api-key.<token>` subprotocol; that token never goes
// upstream, which gets the channel's own key. One log row per session, with the usage
// of every `response.done`.

export const REALTIME_PATH = "/v1/realtime";
const KEY_PROTOCOL = "openai-insecure-api-key.";
const CLOSE_POLICY = 1008;
const CLOSE_UPSTREAM_FAILED = 1011;

function rejectUpgrade(socket: Duplex, status: number, error: GatewayError): void {
  const body = JSON.stringify(openAIErrorBody(error));
  socket.end(
    `HTTP/1.1 ${status} ${status === 400 ? "Bad Request" : "Error"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Answers `realtime` when the client offers it (never echoes the key subprotocol). */
function chooseProtocol(protocols: Set<string>): string | false {
  return protocols.has("realtime") ? "realtime" : false;
}

export class RealtimeProxy {
  private readonly server = new WebSocketServer({ noServer: true, handleProtocols: chooseProtocol, maxPayload: 16 * 1024 * 1024 });

  constructor(private readonly runtime: Runtime) {}

  /** For the HTTP server's `upgrade` event on REALTIME_PATH. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer, url: URL): void {
    const model = url.searchParams.get("model")?.trim();
    if (!model) {
      const log = new RequestLog(this.runtime.logs, REALTIME_PATH, "openai", "GET");
      const error = new GatewayError("invalid_request", "you must provide a model parameter", { param: "model" });
      log.finish(400, error);
      rejectUpgrade(socket, 400, error);
      return;
    }
    this.server.handleUpgrade(request, socket, head, (client) => {
      void this.session(client, request, model).catch((error) => logger.error({ err: error }, "realtime session failed"));
    });
  }

  private async session(client: WebSocket, request: IncomingMessage, model: string): Promise<void> {
    // The client may speak (session.update) before the upstream is connected: kept in order.
    const pending: [RawData, boolean][] = [];
    const hold = (data: RawData, isBinary: boolean) => pending.push([data, isBinary]);
    client.on("message", hold);
    const log = new RequestLog(this.runtime.logs, REALTIME_PATH, "openai", "GET");
    const { call } = log;
    call.model = model;
    call.stream = true;
    const fail = (error: unknown, code: number) => {
      const failure = toGatewayError(error);
      log.finish(failure.status, failure);
      // The error event first, then a close whose reason says the same.
      if (client.readyState === WebSocket.OPEN) {
        client.send(JSON.stringify({ type: "error", event_id: `event_${log.id.slice(4, 20)}`, error: openAIErrorBody(failure).error }));
        client.close(code, failure.message.slice(0, 120));
      }
    };
    let upstream: RealtimeSocket;
    try {
      const hops = checkHops(headerValue(request.headers[HOPS_HEADER]), this.runtime.deploymentId, env.GATEWAY_MAX_HOPS);
      const protocols = String(request.headers["sec-websocket-protocol"] ?? "")
        .split(",")
        .map((entry) => entry.trim());
      const key = bearerToken(String(request.headers.authorization ?? "")) ?? protocols.find((entry) => entry.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length) ?? null;
      const token = await authenticateToken(key, this.runtime.tokens);
      log.tokenId = token.synthetic ? null : token.id;
      log.userId = token.userId;
      // The session lives as long as the client's socket: leaving while it connects cancels the attempt.
      const abort = new AbortController();
      client.once("close", () => abort.abort());
      // A session's spend is unknown up front: it must at least not start past the quota (one token reserved).
      upstream = await runCall(
        { log, call, token, runtime: this.runtime, upstream: this.runtime.upstream, hops, request: { signal: abort.signal } },
        {
          operation: "realtime",
          model,
          stream: true,
          estimate: { inputTokens: 1, outputTokens: 0 },
          call: { model, clientHeaders: { get: (name) => headerValue(request.headers[name]) } },
          renderStreamError: () => undefined,
        },
      );
    } catch (error) {
      fail(error, CLOSE_POLICY);
      return;
    }
    client.off("message", hold);
    for (const [data, isBinary] of pending) upstream.socket.send(data, { binary: isBinary });
    this.pipe(client, upstream, log);
  }

  private pipe(client: WebSocket, opened: RealtimeSocket, log: RequestLog): void {
    const upstream = opened.socket;
    const { call } = log;
    const total: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    let sawUsage = false;
    const forward = (data: RawData, isBinary: boolean) => {
      if (!isBinary) {
        const text = data.toString();
        // Only the event that carries usage is parsed.
        if (text.includes('"response.done"')) {
          try {
            const usage = (JSON.parse(text) as { response?: { usage?: { input_tokens?: number; output_tokens?: number; input_token_details?: { cached_tokens?: number } } } })
              .response?.usage;
            if (usage) {
              sawUsage = true;
              total.promptTokens += usage.input_tokens ?? 0;
              total.completionTokens += usage.output_tokens ?? 0;
              total.cachedTokens = (total.cachedTokens ?? 0) + (usage.input_token_details?.cached_tokens ?? 0);
              call.meter.recordUsage({ ...total });
            }
          } catch {
            // not JSON: relayed as it came
          }
        }
        call.meter.markFirstToken();
      }
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    };
    // What arrived while the session was being set up goes first, in order.
    opened.stopBuffering();
    for (const [data, isBinary] of opened.early) forward(data, isBinary);
    upstream.on("message", forward);
    client.on("message", (data: RawData, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    });
    const closeCode = (code: number) => (code >= 1000 && code <= 4999 && code !== 1005 && code !== 1006 ? code : 1000);
    client.on("close", (code, reason) => {
      if (!sawUsage) call.meter.recordUsage({ promptTokens: 0, completionTokens: 0 });
      log.finish(101);
      upstream.close(closeCode(code), reason);
    });
    upstream.on("close", (code, reason) => {
      if (client.readyState === WebSocket.OPEN) client.close(code === 1006 ? CLOSE_UPSTREAM_FAILED : closeCode(code), reason.toString() || "upstream closed");
    });
    upstream.on("error", (error) => {
      call.meter.recordError(toGatewayError(error));
      if (client.readyState === WebSocket.OPEN) client.close(CLOSE_UPSTREAM_FAILED, "upstream connection failed");
    });
    client.on("error", () => upstream.terminate());
  }

  close(): void {
    for (const client of this.server.clients) client.close(1001, "server shutting down");
    this.server.close();
  }
}

function headerValue(value: string | string[] | undefined): string | null {
  return typeof value === "string" ? value : (value?.[0] ?? null);
}
