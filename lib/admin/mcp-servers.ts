import { diffChanges } from "@/lib/audit/audit-log";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { jsonResponse } from "@/lib/canonical/api-types";
import { MCP_LOOP_MESSAGE, mcpUrlLeadsBackHere } from "@/lib/mcp/loop-check";
import * as service from "@/lib/mcp/mcp-servers";
import { withUpstream } from "@/lib/mcp/upstream-client";
import type { Runtime } from "@/lib/runtime";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

const keys = (runtime: Runtime) => [runtime.secrets.encryptionKey, ...runtime.secrets.previousEncryptionKeys];

async function refuseLoop(runtime: Runtime, url: string): Promise<void> {
  if (await mcpUrlLeadsBackHere(url, runtime.deploymentId, runtime.secrets.encryptionKey)) {
    throw new GatewayError("invalid_request", MCP_LOOP_MESSAGE, { code: "loop_detected", status: 400 });
  }
}

/** Header values never enter the audit trail: names only. */
const audited = (input: { headers?: Record<string, string> }) => ({ ...input, headers: input.headers ? Object.keys(input.headers) : undefined });

export const listMcpServers = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listMcpServers(runtime.database) }));

export const createMcpServer = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.createMcpServerSchema);
  await refuseLoop(runtime, input.url);
  const created = await service.createMcpServer(runtime.database, runtime.secrets.encryptionKey, input);
  await audit("mcp_server.create", { kind: "mcp_server", id: created.id, name: created.name }, diffChanges(null, created, audited(input)));
  return jsonResponse(201, created);
});

export const getMcpServer = withAdmin(async ({ runtime, request }) => jsonResponse(200, await service.getMcpServer(runtime.database, request.params.id ?? "")));

export const updateMcpServer = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.updateMcpServerSchema);
  const id = request.params.id ?? "";
  const before = await service.getMcpServer(runtime.database, id);
  if (input.url) await refuseLoop(runtime, input.url);
  const updated = await service.updateMcpServer(runtime.database, runtime.secrets.encryptionKey, id, input);
  await audit("mcp_server.update", { kind: "mcp_server", id, name: updated.name }, diffChanges(before, updated, audited(input)));
  return jsonResponse(200, updated);
});

export const deleteMcpServer = withAdmin(async ({ runtime, request, audit }) => {
  const id = request.params.id ?? "";
  const before = await service.getMcpServer(runtime.database, id);
  await service.deleteMcpServer(runtime.database, id);
  await audit("mcp_server.delete", { kind: "mcp_server", id, name: before.name }, diffChanges(before, null));
  return jsonResponse(200, { id, deleted: true });
});

/** The server's tools, live: initialize and list, with its credentials. */
export const listMcpServerTools = withAdmin(async ({ runtime, request }) => {
  const server = await service.mcpUpstreamById(runtime.database, keys(runtime), request.params.id ?? "");
  const started = performance.now();
  const result = await withUpstream(server, runtime.deploymentId, async (client) => ({ serverInfo: client.getServerVersion() ?? null, tools: (await client.listTools()).tools }));
  return jsonResponse(200, { data: result.tools, serverInfo: result.serverInfo, latencyMs: Math.round(performance.now() - started) });
});
