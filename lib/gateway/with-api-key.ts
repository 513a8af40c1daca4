import { authenticateRequest } from "@/lib/auth/authenticate-request";
import type { ConsoleSession } from "@/lib/auth/console-session";
import type { TokenRecord } from "@/lib/auth/token-record";
import { type GatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import type { ApiHandler, ApiRequest, ApiResponse } from "@/lib/canonical/api-types";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { checkHops, HOPS_HEADER, isOwnLoopProbe, LOOP_PROBE_HEADER } from "@/lib/net/loop-guard";
import type { Runtime } from "@/lib/runtime";
import { RecordingUpstream } from "@/lib/providers/recording-upstream";
import type { UpstreamClient } from "@/lib/providers/upstream-http";
import type { ClientFormat } from "./client-format";
import type { CallState } from "./call-state";
import { RequestLog } from "./request-log";

export interface GatewayContext {
  request: ApiRequest;
  format: ClientFormat;
  token: TokenRecord;
  log: RequestLog;
  /** The call's own state (log.call): what the pipeline steers by. */
  call: CallState;
  runtime: Runtime;
  /** The upstream client: the shared pool, or a recorder for the Playground's inspector. */
  upstream: UpstreamClient;
  session: ConsoleSession | null;
  /** The loop guard's header for this request's upstream calls: the gateways it passed, this one last. */
  hops: string;
}

/** Asks the gateway to keep the upstream exchange for the console (session required). */
export const CAPTURE_HEADER = "x-gateway-capture";

const CLIENT_CLOSED = 499;

/**
 * Wraps an API handler with what every API request gets: one request log, the
 * format's header checks, token auth, and errors rendered in the caller's own format.
 * `endpoint` names the route in the log, or derives it from the path called (one handler
 * served under two version segments).
 * Limits and quotas are applied by the call pipeline, once the model is known.
 */
export function withApiKey(
  format: ClientFormat,
  endpoint: string | ((request: ApiRequest) => string),
  handler: (context: GatewayContext) => Promise<ApiResponse>,
): ApiHandler<Runtime> {
  return async (request, runtime) => {
    const log = new RequestLog(runtime.logs, typeof endpoint === "string" ? endpoint : endpoint(request), format.name, request.method);
    log.clientRequestId = clientRequestId(request);
    try {
      const hops = checkHops(request.headers.get(HOPS_HEADER), runtime.deploymentId, env.GATEWAY_MAX_HOPS);
      const { token, session } = await authenticateRequest(request, format.extractToken(request), runtime);
      log.tokenId = token.synthetic ? null : token.id;
      log.userId = token.userId ?? session?.userId ?? null;
      format.checkHeaders?.(request);
      let upstream: UpstreamClient = runtime.upstream;
      if (session && request.headers.get(CAPTURE_HEADER) === "1") {
        const recorder = new RecordingUpstream(runtime.upstream, () => log.call.attempts.at(-1)?.channelName);
        const { userId, role } = session;
        // Kept once the exchange is over (streams included), where every process can read it;
        // scrubbed before it is stored, so no credential is ever kept.
        log.call.onFinish(() => {
          // Every key of every channel tried, not only the ones sent: a pool's keys are all secret.
          const tried = new Set(log.call.attempts.map((attempt) => attempt.channelId));
          const keys = runtime.channels
            .all()
            .filter((channel) => tried.has(channel.id))
            .flatMap((channel) => channel.apiKeys ?? [channel.apiKey]);
          const exchanges = recorder.forViewer(role === "admin", keys);
          runtime.captures.save(log.id, { userId, exchanges }).catch((error) => logger.error({ err: error }, "capture not saved"));
        });
        upstream = recorder;
      }
      return log.finishWith(await handler({ request, format, token, log, call: log.call, runtime, upstream, session, hops }));
    } catch (thrown) {
      discardOwnLoopProbe(thrown, request, runtime, log);
      return renderFailure(thrown, request, format, log);
    }
  };
}

/** The loop check's own probe came back here: refused as any loop, but not recorded as traffic. */
function discardOwnLoopProbe(thrown: unknown, request: ApiRequest, runtime: Runtime, log: RequestLog): void {
  const error = thrown as GatewayError | undefined;
  if (error?.code === "loop_detected" && isOwnLoopProbe(request.headers.get(LOOP_PROBE_HEADER), runtime.secrets.encryptionKey)) log.discard(error.status);
}

/** A request refused before reaching a handler (unknown path, wrong method) is still logged. */
export function refuseHandler(format: ClientFormat, endpoint: string, error: GatewayError, headers: Record<string, string> = {}): ApiHandler<Runtime> {
  return async (request, runtime) => {
    const log = new RequestLog(runtime.logs, endpoint, format.name, request.method);
    log.clientRequestId = clientRequestId(request);
    // A looping request is told so wherever it lands (a base URL without its version segment).
    let refusal = error;
    try {
      checkHops(request.headers.get(HOPS_HEADER), runtime.deploymentId, env.GATEWAY_MAX_HOPS);
    } catch (loop) {
      refusal = loop as GatewayError;
      discardOwnLoopProbe(loop, request, runtime, log);
    }
    const response = renderFailure(refusal, request, format, log);
    Object.assign(response.headers, headers);
    return response;
  };
}

function renderFailure(thrown: unknown, request: ApiRequest, format: ClientFormat, log: RequestLog): ApiResponse {
  const error = toGatewayError(thrown);
  if (request.signal.aborted) {
    log.finish(CLIENT_CLOSED, "client disconnected before the response");
  } else {
    if (error.kind === "internal") logger.error({ err: error.cause ?? error, requestId: log.id }, "request failed");
    log.finish(error.status, error);
  }
  const response = format.renderError(error);
  log.stampHeaders(response.headers);
  return response;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller-chosen request id, only when it is a plain token (never reflected otherwise). */
function clientRequestId(request: ApiRequest): string | null {
  const value = request.headers.get("x-request-id");
  return value !== null && REQUEST_ID.test(value) ? value : null;
}
