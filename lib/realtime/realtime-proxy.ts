import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import WebSocket, { WebSocketServer, type RawData } from "ws";
import { authenticateToken, bearerToken } from "@/lib/auth/authenticate-token";
import { GatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";
import { env } from "@/lib/env";
import { openAIErrorBody } from "@/lib/formats/openai/render-error";
import { RequestLog } from "@/lib/gateway/request-log";
import { logger } from "@/lib/logger";
import { priceFor } from "@/lib/limits/prices";
import { providers } from "@/lib/providers/registry";
import { channelServes, type Channel } from "@/lib/routing/channel";
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
  socket.end(`HTTP/1.1 ${status} ${status === 400 ? "Bad Request" : "Error"}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
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
    log.model = model;
    log.stream = true;
    const fail = (error: unknown, code: number) => {
      const failure = toGatewayError(error);
      log.finish(failure.status, failure);
      // The error event first, then a close whose reason says the same.
      if (client.readyState === WebSocket.OPEN) {
        client.send(JSON.stringify({ type: "error", event_id: `event_${log.id.slice(4, 20)}`, error: openAIErrorBody(failure).error }));
        client.close(code, failure.message.slice(0, 120));
      }
    };
    let upstream: BufferedSocket;
    try {
      const protocols = String(request.headers["sec-websocket-protocol"] ?? "").split(",").map((entry) => entry.trim());
      const key = bearerToken(String(request.headers.authorization ?? "")) ?? protocols.find((entry) => entry.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length) ?? null;
      const token = await authenticateToken(key, this.runtime.tokens);
      log.tokenId = token.synthetic ? null : token.id;
      log.userId = token.userId;
      if (token.models && !token.models.has(model)) {
        throw new GatewayError("permission", `This API key is not allowed to use the model '${model}'.`, { code: "model_not_allowed", param: "model" });
      }
      await this.runtime.limits.consumeRequest(token.subject, token);
      // A session's spend is unknown up front: it must at least not start past the quota.
      const reservation = await this.runtime.limits.reserve(token.subject, token, { tokens: 1, usd: 0 });
      log.onSettle = (spend) => void this.runtime.limits.settle(reservation, spend).catch(() => undefined);
      upstream = await this.connectUpstream(model, log, request);
    } catch (error) {
      fail(error, CLOSE_POLICY);
      return;
    }
    client.off("message", hold);
    for (const [data, isBinary] of pending) upstream.send(data, { binary: isBinary });
    this.pipe(client, upstream, log);
  }

  /** The first candidate whose realtime socket opens (failing over before anything is sent). */
  private async connectUpstream(model: string, log: RequestLog, request: IncomingMessage): Promise<BufferedSocket> {
    const candidates = this.runtime.channels
      .candidates(model)
      .filter((channel) => channelServes(channel, "realtime") && providers[channel.type].realtimePath !== undefined);
    if (candidates.length === 0) {
      throw new GatewayError("not_found", `The model '${model}' does not exist or you do not have access to it.`, { code: "model_not_found", param: "model" });
    }
    let lastError: unknown;
    for (const channel of candidates.slice(0, env.ROUTING_MAX_ATTEMPTS)) {
      if (!this.runtime.channelStates.tryAcquire(channel.id, model)) continue;
      const started = performance.now();
      const attempt = { channelId: channel.id, channelName: channel.name, model, status: 0, error: null as string | null, latencyMs: 0 };
      log.attempts.push(attempt);
      try {
        const socket = await openUpstream(channel, channel.modelMap[model] ?? model, request.headers["openai-beta"]);
        attempt.status = 101;
        attempt.latencyMs = Math.round(performance.now() - started);
        log.channelId = channel.id;
        log.upstreamModel = channel.modelMap[model] ?? model;
        log.price = priceFor(channel.prices, model);
        this.runtime.channelStates.recordSuccess(channel.id, model);
        return socket;
      } catch (error) {
        attempt.error = error instanceof Error ? error.message : String(error);
        attempt.latencyMs = Math.round(performance.now() - started);
        this.runtime.channelStates.recordFailure(channel.id, model, attempt.error);
        lastError = error;
      }
    }
    throw lastError instanceof GatewayError
      ? lastError
      : new GatewayError("bad_gateway", "The upstream realtime service could not be reached.", { code: "upstream_unreachable", cause: lastError });
  }

  private pipe(client: WebSocket, upstream: BufferedSocket, log: RequestLog): void {
    const total: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };
    let sawUsage = false;
    const forward = (data: RawData, isBinary: boolean) => {
      if (!isBinary) {
        const text = data.toString();
        // Only the event that carries usage is parsed.
        if (text.includes('"response.done"')) {
          try {
            const usage = (JSON.parse(text) as { response?: { usage?: { input_tokens?: number; output_tokens?: number; input_token_details?: { cached_tokens?: number } } } }).response?.usage;
            if (usage) {
              sawUsage = true;
              total.promptTokens += usage.input_tokens ?? 0;
              total.completionTokens += usage.output_tokens ?? 0;
              total.cachedTokens = (total.cachedTokens ?? 0) + (usage.input_token_details?.cached_tokens ?? 0);
              log.meter.recordUsage({ ...total });
            }
          } catch {
            // not JSON: relayed as it came
          }
        }
        log.meter.markFirstToken();
      }
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    };
    // What arrived while the session was being set up goes first, in order.
    upstream.off("message", upstream.bufferEarly);
    for (const [data, isBinary] of upstream.early) forward(data, isBinary);
    upstream.on("message", forward);
    client.on("message", (data: RawData, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
    });
    const closeCode = (code: number) => (code >= 1000 && code <= 4999 && code !== 1005 && code !== 1006 ? code : 1000);
    client.on("close", (code, reason) => {
      if (!sawUsage) log.meter.recordUsage({ promptTokens: 0, completionTokens: 0 });
      log.finish(101);
      upstream.close(closeCode(code), reason);
    });
    upstream.on("close", (code, reason) => {
      if (client.readyState === WebSocket.OPEN) client.close(code === 1006 ? CLOSE_UPSTREAM_FAILED : closeCode(code), reason.toString() || "upstream closed");
    });
    upstream.on("error", (error) => {
      log.meter.recordError(toGatewayError(error));
      if (client.readyState === WebSocket.OPEN) client.close(CLOSE_UPSTREAM_FAILED, "upstream connection failed");
    });
    client.on("error", () => upstream.terminate());
  }

  close(): void {
    for (const client of this.server.clients) client.close(1001, "server shutting down");
    this.server.close();
  }
}

/** An upstream socket that keeps the events sent before the proxy is wired (session.created comes at once). */
type BufferedSocket = WebSocket & { early: [RawData, boolean][]; bufferEarly: (data: RawData, isBinary: boolean) => void };

/** Opens the channel's realtime socket with its own key; rejects if it does not open in time. */
function openUpstream(channel: Channel, upstreamModel: string, beta: string | string[] | undefined): Promise<BufferedSocket> {
  const base = channel.baseUrl.replace(/\/+$/, "").replace(/^http/, "ws");
  const url = `${base}${providers[channel.type].realtimePath}?model=${encodeURIComponent(upstreamModel)}`;
  const headers: Record<string, string> = {};
  if (channel.apiKey) headers.authorization = `Bearer ${channel.apiKey}`;
  if (typeof beta === "string") headers["openai-beta"] = beta;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, ["realtime"], { headers, handshakeTimeout: Math.min(env.UPSTREAM_CONNECT_TIMEOUT_MS, env.UPSTREAM_TIMEOUT_MS) }) as BufferedSocket;
    socket.early = [];
    socket.bufferEarly = (data, isBinary) => socket.early.push([data, isBinary]);
    socket.on("message", socket.bufferEarly);
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_request, response) => {
      socket.terminate();
      const status = response.statusCode ?? 502;
      reject(new GatewayError(status === 401 || status === 403 ? "bad_gateway" : "upstream_error", `The upstream realtime service answered HTTP ${status}.`, { upstreamStatus: status, status: status >= 500 ? status : 502 }));
    });
    socket.once("error", (error) => reject(new GatewayError("bad_gateway", `The upstream realtime service could not be reached: ${error.message}`, { code: "upstream_unreachable", cause: error })));
  });
}
