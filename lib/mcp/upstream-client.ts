import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { HOPS_HEADER } from "@/lib/net/loop-guard";
import type { McpUpstream } from "./mcp-servers";

// One connection to an upstream MCP server per gateway request: nothing about an upstream
// session outlives the request, so any process can serve the next one (issue 35, point 5).

const CLIENT_INFO = { name: "ai-gateway", version: "1.0.0" };
const CALL_TIMEOUT_MS = 120_000;

export interface UpstreamConnection {
  client: Client;
  close(): Promise<void>;
}

/** Opens (initialize + initialized) a client to the server, its headers and the loop guard's hop header sent. */
export async function connectUpstream(server: McpUpstream, hops: string, signal?: AbortSignal): Promise<UpstreamConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { ...server.headers, [HOPS_HEADER]: hops }, signal },
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: 15_000 });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw upstreamError(server.name, error);
  }
  return {
    client,
    async close() {
      // A stateful upstream drops its session on DELETE; one that keeps none answers 405, which is fine.
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** Runs `work` on a fresh connection and closes it, whatever happens. */
export async function withUpstream<T>(server: McpUpstream, hops: string, work: (client: Client) => Promise<T>): Promise<T> {
  const connection = await connectUpstream(server, hops);
  try {
    return await work(connection.client);
  } catch (error) {
    throw upstreamError(server.name, error);
  } finally {
    await connection.close();
  }
}

export const UPSTREAM_REQUEST_OPTIONS = { timeout: CALL_TIMEOUT_MS, resetTimeoutOnProgress: true } as const;

/** An upstream failure as the caller should read it: the server named, no header or credential in it. */
export function upstreamError(serverName: string, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  // The SDK's messages carry status and body text, never the request's headers.
  return new GatewayError("bad_gateway", `MCP server "${serverName}" failed: ${detail.slice(0, 500)}`, { code: "mcp_upstream_error" });
}
