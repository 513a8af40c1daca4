"use server";

import { revalidatePath } from "next/cache";
import { diffChanges } from "@/lib/audit/audit-log";
import type { ConsoleSession } from "@/lib/auth/console-session";
import { GatewayError, toGatewayError } from "@/lib/canonical/gateway-error";
import { consoleAudit } from "@/lib/console/console-audit";
import { requireAdmin } from "@/lib/console/require-session";
import { MCP_LOOP_MESSAGE, mcpUrlLeadsBackHere } from "@/lib/mcp/loop-check";
import { createMcpServer, createMcpServerSchema, deleteMcpServer, getMcpServer, mcpUpstreamById, updateMcpServer } from "@/lib/mcp/mcp-servers";
import { withUpstream } from "@/lib/mcp/upstream-client";
import { getRuntime } from "@/lib/runtime";
import { readGrants } from "@/lib/tokens/mcp-grants";
import { updateToken } from "@/lib/tokens/token-service";

export type McpFormState = { error: string | null; added: string | null };

export async function createMcpServerAction(_state: McpFormState, form: FormData): Promise<McpFormState> {
  const admin = await requireAdmin();
  const headerName = String(form.get("headerName") ?? "").trim();
  const headerValue = String(form.get("headerValue") ?? "");
  const parsed = createMcpServerSchema.safeParse({
    name: String(form.get("name") ?? "").trim(),
    url: String(form.get("url") ?? "").trim(),
    headers: headerName && headerValue ? { [headerName]: headerValue } : undefined,
    public: form.get("public") === "on",
  });
  if (!parsed.success) return { error: parsed.error.issues[0]?.message ?? "Check the fields.", added: null };
  try {
    const runtime = await getRuntime();
    if (await mcpUrlLeadsBackHere(parsed.data.url, runtime.deploymentId, runtime.secrets.encryptionKey)) throw new GatewayError("invalid_request", MCP_LOOP_MESSAGE);
    const created = await createMcpServer(runtime.database, runtime.secrets.encryptionKey, parsed.data);
    await consoleAudit(admin, "mcp_server.create", { kind: "mcp_server", id: created.id, name: created.name }, diffChanges(null, created));
    revalidatePath("/console/mcp");
    return { error: null, added: created.name };
  } catch (error) {
    return { error: toGatewayError(error).message, added: null };
  }
}

type Result = { ok: boolean; error?: string };

async function run(work: (admin: ConsoleSession) => Promise<unknown>): Promise<Result> {
  const admin = await requireAdmin();
  try {
    await work(admin);
    revalidatePath("/console/mcp");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

export async function setMcpServerEnabledAction(id: string, enabled: boolean): Promise<Result> {
  return run(async (admin) => {
    const runtime = await getRuntime();
    const before = await getMcpServer(runtime.database, id);
    const updated = await updateMcpServer(runtime.database, runtime.secrets.encryptionKey, id, { enabled });
    await consoleAudit(admin, "mcp_server.update", { kind: "mcp_server", id, name: updated.name }, diffChanges(before, updated, { enabled }));
  });
}

export async function deleteMcpServerAction(id: string): Promise<Result> {
  return run(async (admin) => {
    const runtime = await getRuntime();
    const before = await getMcpServer(runtime.database, id);
    await deleteMcpServer(runtime.database, id);
    await consoleAudit(admin, "mcp_server.delete", { kind: "mcp_server", id, name: before.name }, diffChanges(before, null));
  });
}

export type McpTestResult = { ok: true; latencyMs: number; tools: { name: string; description: string | null }[] } | { ok: false; error: string };

/** Test: initialize and list the tools, with the server's own credentials. */
export async function testMcpServerAction(id: string): Promise<McpTestResult> {
  await requireAdmin();
  try {
    const runtime = await getRuntime();
    const server = await mcpUpstreamById(runtime.database, [runtime.secrets.encryptionKey, ...runtime.secrets.previousEncryptionKeys], id);
    const started = performance.now();
    const tools = await withUpstream(server, runtime.deploymentId, async (client) => (await client.listTools()).tools);
    return { ok: true, latencyMs: Math.round(performance.now() - started), tools: tools.map((tool) => ({ name: tool.name, description: tool.description ?? null })) };
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

/** Sets what a token may use of one server: the tools named, none (removes the grant), or null for every tool. */
export async function grantMcpToolsAction(tokenId: string, server: string, tools: string[] | null): Promise<Result> {
  return run(async (admin) => {
    const runtime = await getRuntime();
    const row = await runtime.database.token.findUnique({ where: { id: tokenId }, select: { mcp: true, name: true } });
    if (!row) throw new GatewayError("not_found", "That token no longer exists.");
    const before = readGrants(row.mcp);
    const others = before.filter((grant) => grant.server !== server);
    const mcp = tools === null ? [...others, { server }] : tools.length > 0 ? [...others, { server, tools }] : others;
    await updateToken(runtime, { kind: "all" }, tokenId, { mcp });
    await consoleAudit(admin, "token.update", { kind: "token", id: tokenId, name: row.name }, { mcp: [before, mcp] });
  });
}
