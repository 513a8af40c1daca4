import { z } from "zod";

// Who may use which MCP tools: a token's `mcp` grants, its team's servers and the servers
// marked public. Nothing else grants access, and grants are read on every request, so a
// removed one ends the next call.

export const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export const mcpGrantSchema = z.strictObject({
  server: z.string().regex(SERVER_NAME, "A server name matches ^[a-z0-9][a-z0-9_-]{0,31}$."),
  tools: z.array(z.string().min(1).max(128)).max(500).optional(),
});
export const mcpGrantsSchema = z.array(mcpGrantSchema).max(200);
export type McpGrant = z.infer<typeof mcpGrantSchema>;

/** The stored grants, ignoring anything malformed (a row written before validation, say). */
export function readGrants(value: unknown): McpGrant[] {
  const parsed = mcpGrantsSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
}

/** A team's `mcp` (server names) as grants of every tool; names that are not a server's are ignored. */
export function teamGrants(value: unknown): McpGrant[] {
  if (!Array.isArray(value)) return [];
  return value.filter((name): name is string => typeof name === "string" && SERVER_NAME.test(name)).map((server) => ({ server }));
}

/** Per server the caller may use: null means every tool, a set names the tools allowed. */
export type ToolAccess = Map<string, ReadonlySet<string> | null>;

export function toolAccess(grants: readonly McpGrant[], publicServers: readonly string[]): ToolAccess {
  const access: ToolAccess = new Map();
  for (const server of publicServers) access.set(server, null);
  for (const grant of grants) {
    const previous = access.get(grant.server);
    if (previous === null) continue;
    access.set(grant.server, grant.tools ? new Set([...(previous ?? []), ...grant.tools]) : null);
  }
  return access;
}

export function mayUse(access: ToolAccess, server: string, tool: string): boolean {
  const tools = access.get(server);
  if (tools === undefined) return false;
  return tools === null || tools.has(tool);
}

/** `<server>__<tool>`, split at the first `__` (server names never hold `__`). */
export function splitToolName(prefixed: string): { server: string; tool: string } | null {
  const at = prefixed.indexOf("__");
  if (at <= 0) return null;
  return { server: prefixed.slice(0, at), tool: prefixed.slice(at + 2) };
}
