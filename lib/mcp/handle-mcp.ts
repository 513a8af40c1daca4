import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ApiHandler, ApiRequest, ApiResponse } from "@/lib/canonical/api-types";
import { bearerToken } from "@/lib/canonical/bearer-token";
import { GatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import { authenticateToken } from "@/lib/auth/authenticate-token";
import type { TokenRecord } from "@/lib/auth/token-record";
import { env } from "@/lib/env";
import { RequestLog } from "@/lib/gateway/request-log";
import { CallCharge } from "@/lib/limits/call-charge";
import { logger } from "@/lib/logger";
import { checkHops, HOPS_HEADER } from "@/lib/net/loop-guard";
import type { Runtime } from "@/lib/runtime";
import { JSON_RPC, type JsonRpcId, type JsonRpcMessage, jsonRpcMessageSchema, jsonRpcResponse, rpcError, rpcGatewayError, rpcResult } from "./json-rpc";
import { mayUse, readGrants, splitToolName, teamGrants, type ToolAccess, toolAccess } from "@/lib/tokens/mcp-grants";
import { enabledUpstreams, type McpUpstream } from "./mcp-servers";
import { type McpSession, openSession, sealSession, sessionKeys } from "./mcp-session";
import { UPSTREAM_REQUEST_OPTIONS, upstreamError, withUpstream } from "./upstream-client";

// The gateway's MCP endpoint: one MCP server (Streamable HTTP, stateless) aggregating the
// upstream servers a token may use. /mcp prefixes names with `<server>__`; /mcp/{server}
// serves one server under its own names. Only tools/call is metered, limited and logged.

export const SUPPORTED_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
const LATEST = SUPPORTED_PROTOCOL_VERSIONS[0];
const SESSION_HEADER = "mcp-session-id";
const SERVER_INFO = { name: "ai-gateway-mcp", version: "1.0.0" };
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** What one request works with: who calls, which servers they may use, and the scope (/mcp or /mcp/{server}). */
interface McpContext {
  runtime: Runtime;
  request: ApiRequest;
  token: TokenRecord;
  /** The servers the caller may use, in name order (read fresh: a removed grant ends the next call). */
  servers: McpUpstream[];
  access: ToolAccess;
  /** The one server of /mcp/{server}, or null. */
  scope: string | null;
  hops: string;
}

export const handleMcpPost: ApiHandler<Runtime> = (request, runtime) => servePost(request, runtime);

/** GET would open a server-to-client stream; this server sends nothing unprompted. */
export const handleMcpGet: ApiHandler<Runtime> = async () =>
  jsonRpcResponse(405, rpcError(null, JSON_RPC.invalidRequest, "This MCP endpoint offers no server-initiated stream; POST requests instead."), { allow: "POST, DELETE" });

/** Ending a session: nothing is kept per session, so there is nothing to drop. */
export const handleMcpDelete: ApiHandler<Runtime> = async (request, runtime) => {
  try {
    await authenticate(request, runtime);
    return { status: 200, headers: {}, body: "" };
  } catch (thrown) {
    return failure(null, toGatewayError(thrown));
  }
};

async function servePost(request: ApiRequest, runtime: Runtime): Promise<ApiResponse> {
  let id: JsonRpcId = null;
  try {
    const hops = checkHops(request.headers.get(HOPS_HEADER), runtime.deploymentId, env.GATEWAY_MAX_HOPS);
    const message = await readMessage(request);
    id = message.id ?? null;
    const token = await authenticate(request, runtime);
    checkProtocolHeader(request);
    const scope = request.params.server ?? null;
    const session = readSession(request, runtime, token, scope);
    const context = await contextFor(runtime, request, token, scope, hops);
    if (message.method === undefined) return { status: 202, headers: {}, body: "" };
    // A notification (no id) needs no answer: 202, as the transport says.
    if (message.id === undefined) return { status: 202, headers: {}, body: "" };
    if (message.method === "initialize") return initialize(context, message, runtime);
    if (message.method === "tools/call") return await callTool(context, message);
    return jsonRpcResponse(200, await answer(context, message, session), {});
  } catch (thrown) {
    const error = toGatewayError(thrown);
    if (error.kind === "internal") logger.error({ err: thrown }, "mcp request failed");
    return failure(id, error);
  }
}

function failure(id: JsonRpcId, error: GatewayError): ApiResponse {
  const headers: Record<string, string> = error.kind === "authentication" ? { "www-authenticate": 'Bearer realm="ai-gateway"' } : {};
  return jsonRpcResponse(error.status, rpcGatewayError(id, error), headers);
}

async function readMessage(request: ApiRequest): Promise<JsonRpcMessage> {
  let raw: unknown;
  try {
    raw = JSON.parse((await request.body(MAX_BODY_BYTES)).toString("utf8"));
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError("invalid_request", "The body is not JSON: send one JSON-RPC 2.0 message.", { code: "parse_error" });
  }
  if (Array.isArray(raw))
    throw new GatewayError("invalid_request", "Batches are not part of MCP since 2025-06-18: send one JSON-RPC message per request.", { code: "invalid_request" });
  const parsed = jsonRpcMessageSchema.safeParse(raw);
  if (!parsed.success) throw new GatewayError("invalid_request", "The body is not a JSON-RPC 2.0 message.", { code: "invalid_request" });
  return parsed.data;
}

async function authenticate(request: ApiRequest, runtime: Runtime): Promise<TokenRecord> {
  const key = bearerToken(request.headers.get("authorization"));
  if (!key) throw new GatewayError("authentication", "Send your gateway token as Authorization: Bearer sk-...", { code: "missing_api_key" });
  return authenticateToken(key, runtime.tokens, Date.now());
}

function checkProtocolHeader(request: ApiRequest): void {
  const version = request.headers.get("mcp-protocol-version");
  if (version && !(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    throw new GatewayError("invalid_request", `Unsupported MCP-Protocol-Version ${version}; this gateway speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}.`, {
      code: "unsupported_protocol_version",
    });
  }
}

/** The session the id seals, when one was sent: sealed by this deployment for this token and scope, else 404 (start over). */
function readSession(request: ApiRequest, runtime: Runtime, token: TokenRecord, scope: string | null): McpSession | null {
  const id = request.headers.get(SESSION_HEADER);
  if (!id) return null;
  const session = openSession(id, sessionKeys(runtime.secrets));
  if (!session || session.tokenId !== token.id || session.server !== scope) {
    throw new GatewayError("not_found", "Unknown or expired MCP session: initialize a new one.", { code: "mcp_session_not_found" });
  }
  return session;
}

async function contextFor(runtime: Runtime, request: ApiRequest, token: TokenRecord, scope: string | null, hops: string): Promise<McpContext> {
  const row = token.synthetic ? null : await runtime.database.token.findUnique({ where: { id: token.id }, select: { mcp: true, team: { select: { mcp: true } } } });
  const upstreams = await enabledUpstreams(runtime.database, [runtime.secrets.encryptionKey, ...runtime.secrets.previousEncryptionKeys]);
  const access = toolAccess(
    // A team's servers are open, every tool, to each of its tokens.
    [...readGrants(row?.mcp), ...teamGrants(row?.team?.mcp)],
    upstreams.filter((server) => server.public).map((server) => server.name),
  );
  let servers = upstreams.filter((server) => access.has(server.name));
  if (scope !== null) {
    servers = servers.filter((server) => server.name === scope);
    if (servers.length === 0) throw new GatewayError("not_found", `No MCP server "${scope}" is open to this token.`, { code: "mcp_server_not_found" });
  }
  return { runtime, request, token, servers, access, scope, hops };
}

function initialize(context: McpContext, message: JsonRpcMessage, runtime: Runtime): ApiResponse {
  const requested = message.params?.protocolVersion;
  const protocolVersion = typeof requested === "string" && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested) ? requested : LATEST;
  const sessionId = sealSession({ tokenId: context.token.id, server: context.scope, protocolVersion, createdAt: Date.now() }, sessionKeys(runtime.secrets));
  const result = {
    protocolVersion,
    capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } },
    serverInfo: context.scope ? { ...SERVER_INFO, name: `ai-gateway-mcp/${context.scope}` } : SERVER_INFO,
    instructions: context.scope ? undefined : "Tools from the MCP servers this gateway token may use, named <server>__<tool>.",
  };
  return jsonRpcResponse(200, rpcResult(message.id ?? null, result), { [SESSION_HEADER]: sessionId });
}

/** The listings and reads: aggregated over the servers, names prefixed on /mcp. */
async function answer(context: McpContext, message: JsonRpcMessage, _session: McpSession | null): Promise<unknown> {
  const id = message.id ?? null;
  const method = message.method ?? "";
  const handler = METHODS[method];
  if (!handler) return rpcError(id, JSON_RPC.methodNotFound, `Method not found: ${method}`);
  try {
    return rpcResult(id, await handler(context, message.params ?? {}));
  } catch (thrown) {
    const error = toGatewayError(thrown);
    return error.kind === "invalid_request" ? rpcError(id, JSON_RPC.invalidParams, error.message) : rpcGatewayError(id, error);
  }
}

type MethodHandler = (context: McpContext, params: Record<string, unknown>) => Promise<unknown>;

const METHODS: Record<string, MethodHandler> = {
  ping: async () => ({}),
  "tools/list": async (context) => ({ tools: await listEach(context, "tools", listTools) }),
  "prompts/list": async (context) => ({ prompts: await listEach(context, "prompts", listPrompts) }),
  "prompts/get": async (context, params) => {
    const target = resolve(context, String(params.name ?? ""), "prompt");
    return withUpstream(target.server, context.hops, (client) => client.getPrompt({ ...params, name: target.name } as never));
  },
  "resources/list": async (context) => ({ resources: await listEach(context, "resources", listResources) }),
  "resources/templates/list": async () => ({ resourceTemplates: [] }),
  "resources/read": async (context, params) => {
    const target = resourceTarget(context, String(params.uri ?? ""));
    return withUpstream(target.server, context.hops, (client) => client.readResource({ ...params, uri: target.name } as never));
  },
};

/** Each server's items, prefixed on /mcp; a server that fails is left out of the listing (and logged), not the whole answer. */
async function listEach<T>(context: McpContext, what: string, list: (client: Client) => Promise<T[]>): Promise<T[]> {
  const results = await Promise.all(
    context.servers.map(async (server) => {
      try {
        const items = await withUpstream(server, context.hops, list);
        return items
          .map((item) => prefixed(context, server, item))
          .filter((item) => what !== "tools" || mayUse(context.access, server.name, (item as { name: string }).name.slice(context.scope ? 0 : server.name.length + 2)));
      } catch (error) {
        logger.warn({ server: server.name, error: upstreamError(server.name, error).message }, `mcp ${what}/list failed`);
        return [];
      }
    }),
  );
  return results.flat();
}

function prefixed<T>(context: McpContext, server: McpUpstream, item: T): T {
  if (context.scope) return item;
  const named = item as { name?: string; uri?: string };
  const renamed: Record<string, unknown> = { ...named };
  if (typeof named.name === "string") renamed.name = `${server.name}__${named.name}`;
  // A resource's uri is how it is read: wrapped so the read finds its server.
  if (typeof named.uri === "string") renamed.uri = `mcp://${server.name}/${encodeURIComponent(named.uri)}`;
  return renamed as T;
}

async function pages<T>(fetchPage: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page += 1) {
    const result = await fetchPage(cursor);
    all.push(...result.items);
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
  }
  return all;
}

const listTools = (client: Client) => pages(async (cursor) => client.listTools({ cursor }).then((result) => ({ items: result.tools, nextCursor: result.nextCursor })));
const listPrompts = (client: Client) =>
  client.getServerCapabilities()?.prompts
    ? pages(async (cursor) => client.listPrompts({ cursor }).then((result) => ({ items: result.prompts, nextCursor: result.nextCursor })))
    : Promise.resolve([]);
const listResources = (client: Client) =>
  client.getServerCapabilities()?.resources
    ? pages(async (cursor) => client.listResources({ cursor }).then((result) => ({ items: result.resources, nextCursor: result.nextCursor })))
    : Promise.resolve([]);

/** The server and its own name for a name the client used; refused (never forwarded) when not allowed. */
function resolve(context: McpContext, name: string, what: "tool" | "prompt"): { server: McpUpstream; name: string } {
  const split = context.scope ? { server: context.scope, tool: name } : splitToolName(name);
  const server = split && context.servers.find((candidate) => candidate.name === split.server);
  if (!split || !server || (what === "tool" && !mayUse(context.access, server.name, split.tool))) {
    throw new GatewayError("permission", `This token may not use the ${what} "${name}".`, { code: "mcp_not_granted" });
  }
  return { server, name: split.tool };
}

function resourceTarget(context: McpContext, uri: string): { server: McpUpstream; name: string } {
  if (context.scope) return { server: context.servers[0]!, name: uri };
  const match = /^mcp:\/\/([^/]+)\/(.*)$/.exec(uri);
  const server = match && context.servers.find((candidate) => candidate.name === match[1]);
  if (!match || !server) throw new GatewayError("permission", `This token may not read the resource "${uri}".`, { code: "mcp_not_granted" });
  return { server, name: decodeURIComponent(match[2]!) };
}

/** tools/call: refused unless granted, then one request against the limits and one log row. */
async function callTool(context: McpContext, message: JsonRpcMessage): Promise<ApiResponse> {
  const id = message.id ?? null;
  const params = message.params ?? {};
  const name = typeof params.name === "string" ? params.name : "";
  const log = new RequestLog(context.runtime.logs, "/mcp", "mcp", "POST");
  log.tokenId = context.token.synthetic ? null : context.token.id;
  log.userId = context.token.userId;
  let target: { server: McpUpstream; name: string };
  try {
    target = resolve(context, name, "tool");
  } catch (thrown) {
    const error = toGatewayError(thrown);
    log.finish(error.status, error);
    return jsonRpcResponse(200, rpcGatewayError(id, error));
  }
  log.mcpServer = target.server.name;
  log.mcpTool = target.name;
  const charge = new CallCharge(context.runtime.limits, context.token.payers);
  try {
    await charge.admit();
    await charge.reserve(`mcp:${target.server.name}`, { tokens: 0, usd: 0 });
  } catch (thrown) {
    const error = toGatewayError(thrown);
    log.finish(error.status, error);
    return jsonRpcResponse(error.status === 429 ? 429 : 200, rpcGatewayError(id, error), error.retryAfterSeconds ? { "retry-after": String(error.retryAfterSeconds) } : {});
  }
  const meta = params._meta as { progressToken?: string | number } | undefined;
  const progressToken = meta?.progressToken;
  const forward = { name: target.name, arguments: params.arguments as Record<string, unknown> | undefined };
  if (progressToken === undefined) {
    const response = await forwardCall(context, target.server, forward, id, log, charge);
    return jsonRpcResponse(200, response);
  }
  return streamCall(context, target.server, forward, id, progressToken, log, charge);
}

type Forward = { name: string; arguments?: Record<string, unknown> };

async function forwardCall(
  context: McpContext,
  server: McpUpstream,
  forward: Forward,
  id: JsonRpcId,
  log: RequestLog,
  charge: CallCharge,
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void,
): Promise<unknown> {
  try {
    const result = await withUpstream(server, context.hops, (client) => client.callTool(forward, undefined, { ...UPSTREAM_REQUEST_OPTIONS, onprogress: onProgress }));
    // The upstream's answer, content, structuredContent and isError as they came.
    const isError = (result as { isError?: boolean }).isError === true;
    log.finish(200, isError ? "the tool reported an error (isError)" : undefined);
    return rpcResult(id, result);
  } catch (thrown) {
    const error = toGatewayError(thrown);
    log.finish(error.status, error);
    return rpcGatewayError(id, error);
  } finally {
    charge.settle({ tokens: 0, usd: 0 });
  }
}

/** The call answered as an SSE stream: the upstream's progress relayed under the client's token, then the result. */
function streamCall(context: McpContext, server: McpUpstream, forward: Forward, id: JsonRpcId, progressToken: string | number, log: RequestLog, charge: CallCharge): ApiResponse {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const push = (message: unknown) => {
    queue.push(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    wake?.();
  };
  forwardCall(context, server, forward, id, log, charge, (progress) => push({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, ...progress } })).then(
    (response) => {
      push(response);
      done = true;
      wake?.();
    },
  );
  async function* body() {
    while (true) {
      while (queue.length > 0) yield queue.shift()!;
      if (done) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  }
  return { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" }, body: body() };
}
