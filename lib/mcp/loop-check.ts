import { HOPS_HEADER, LOOP_PROBE_HEADER, loopProbeMark } from "@/lib/net/loop-guard";

/**
 * Whether an MCP server URL leads back to this deployment: one initialize sent as this
 * deployment's own request, which its /mcp (any process) refuses with 508 before reading
 * a token. Anything else, an error included, is not a loop; loopback servers elsewhere pass.
 */
export async function mcpUrlLeadsBackHere(url: string, deploymentId: string, encryptionKey: Buffer): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        [HOPS_HEADER]: deploymentId,
        [LOOP_PROBE_HEADER]: loopProbeMark(encryptionKey),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      redirect: "manual",
      signal: AbortSignal.timeout(5000),
    });
    await response.body?.cancel();
    return response.status === 508;
  } catch {
    return false;
  }
}

export const MCP_LOOP_MESSAGE = "The url leads back to this gateway: an MCP server has to be a remote MCP server, not this deployment's own /mcp.";
