import WebSocket, { type RawData } from "ws";
import type { AbortSource } from "@/lib/canonical/abort-source";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { OperationMember, RealtimeSocket } from "@/lib/providers/provider";
import { retryAfterSeconds } from "@/lib/providers/post-json";
import { HOPS_HEADER } from "@/lib/net/loop-guard";

/**
 * OpenAI's realtime WebSocket: opened with the channel's own credentials (the client's
 * token never goes upstream). The attempt succeeds when the upstream answers 101; any
 * other answer is an upstream error with its status, classified like an HTTP attempt's.
 */
export const openAIRealtimeMember: OperationMember<"realtime"> = {
  serves: (_call, channel) => channel.baseUrl.startsWith("http"),
  async attempt(call, context) {
    const { transport } = context;
    if (!transport.socket) throw new GatewayError("not_found", "This channel has no realtime endpoint.", { code: "realtime_not_supported" });
    const target = await transport.socket({ path: "/realtime", model: context.upstreamModel, query: `model=${encodeURIComponent(context.upstreamModel)}` });
    const headers: Record<string, string> = { ...target.headers, [HOPS_HEADER]: context.hops };
    const beta = call.clientHeaders.get("openai-beta");
    if (beta) headers["openai-beta"] = beta;
    return openSocket(target.url, headers, context.timeouts.connectMs, context.signal);
  },
};

function openSocket(url: string, headers: Record<string, string>, handshakeTimeout: number, signal: AbortSource): Promise<RealtimeSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, ["realtime"], { headers, handshakeTimeout });
    const early: [RawData, boolean][] = [];
    // session.created comes at once: kept until the proxy is wired.
    const buffer = (data: RawData, isBinary: boolean) => early.push([data, isBinary]);
    socket.on("message", buffer);
    const abort = () => socket.terminate();
    signal.addEventListener("abort", abort, { once: true });
    const settle = () => signal.removeEventListener("abort", abort);
    socket.once("open", () => {
      settle();
      resolve({ socket, early, stopBuffering: () => socket.off("message", buffer) });
    });
    socket.once("unexpected-response", (_request, response) => {
      settle();
      const status = response.statusCode ?? 502;
      const chunks: Buffer[] = [];
      // The refusal's body says why; read before the socket is dropped.
      const fail = () => {
        socket.terminate();
        const detail = Buffer.concat(chunks).toString("utf8").slice(0, 300);
        reject(
          new GatewayError(status >= 500 ? "bad_gateway" : "upstream_error", `The upstream realtime service answered HTTP ${status}${detail ? `: ${detail}` : "."}`, {
            upstreamStatus: status,
            status: status >= 500 || status === 401 || status === 403 ? 502 : status,
            retryAfterSeconds: retryAfterSeconds(response.headers["retry-after"]),
          }),
        );
      };
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.once("end", fail);
      response.once("error", fail);
    });
    socket.once("error", (error) => {
      settle();
      reject(new GatewayError("bad_gateway", `The upstream realtime service could not be reached: ${error.message}`, { code: "upstream_unreachable", cause: error }));
    });
  });
}
