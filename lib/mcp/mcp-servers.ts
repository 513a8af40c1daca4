import { z } from "zod";
import type { Database } from "@/lib/db/client";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { decryptSecret, encryptSecret } from "@/lib/crypto/encryption";
import { SERVER_NAME } from "@/lib/tokens/mcp-grants";

// MCP servers as the admin API and the console see them. Upstream headers are encrypted at
// rest like channel keys; an answer names the headers, never their values.

const name = z
  .string()
  .regex(SERVER_NAME, "A server name matches ^[a-z0-9][a-z0-9_-]{0,31}$.")
  .refine((value) => !value.includes("__"), "A server name cannot hold `__`: it separates the server from the tool in `<server>__<tool>`.");
const url = z
  .string()
  .max(2000)
  .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), "The url is an http(s) URL of a Streamable HTTP MCP server.");
const headers = z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "A header name is an HTTP token."), z.string().max(8000));

export const createMcpServerSchema = z.strictObject({ name, url, headers: headers.optional(), enabled: z.boolean().optional(), public: z.boolean().optional() });
export const updateMcpServerSchema = z.strictObject({
  name: name.optional(),
  url: url.optional(),
  headers: headers.optional(),
  enabled: z.boolean().optional(),
  public: z.boolean().optional(),
});
export type CreateMcpServer = z.infer<typeof createMcpServerSchema>;
export type UpdateMcpServer = z.infer<typeof updateMcpServerSchema>;

interface Row {
  id: string;
  name: string;
  url: string;
  headersEncrypted: string | null;
  headerNames: unknown;
  enabled: boolean;
  public: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A server as the request path needs it: its headers decrypted, in memory only for the call. */
export interface McpUpstream {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  enabled: boolean;
  public: boolean;
}

export function view(row: Row) {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    headers: Array.isArray(row.headerNames) ? (row.headerNames as string[]) : [],
    enabled: row.enabled,
    public: row.public,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type McpServerView = ReturnType<typeof view>;

function sealedHeaders(value: Record<string, string> | undefined, key: Buffer) {
  if (value === undefined) return {};
  const names = Object.keys(value);
  return { headersEncrypted: names.length > 0 ? encryptSecret(JSON.stringify(value), key) : null, headerNames: names };
}

function upstream(row: Row, keys: Buffer[]): McpUpstream {
  const headers = row.headersEncrypted ? (JSON.parse(decryptSecret(row.headersEncrypted, keys)) as Record<string, string>) : {};
  return { id: row.id, name: row.name, url: row.url, headers, enabled: row.enabled, public: row.public };
}

function notFound(): GatewayError {
  return new GatewayError("not_found", "No MCP server has that id.", { code: "mcp_server_not_found" });
}

function nameTaken(serverName: string): GatewayError {
  return new GatewayError("invalid_request", `An MCP server named "${serverName}" already exists.`, { code: "mcp_server_exists" });
}

export async function listMcpServers(database: Database): Promise<McpServerView[]> {
  return (await database.mcpServer.findMany({ orderBy: { name: "asc" } })).map(view);
}

export async function getMcpServer(database: Database, id: string): Promise<McpServerView> {
  const row = await database.mcpServer.findUnique({ where: { id } });
  if (!row) throw notFound();
  return view(row);
}

/** The server with its credentials, for calling it (the console's test, the tools listing). */
export async function mcpUpstreamById(database: Database, keys: Buffer[], id: string): Promise<McpUpstream> {
  const row = await database.mcpServer.findUnique({ where: { id } });
  if (!row) throw notFound();
  return upstream(row, keys);
}

/** Every enabled server, read on each request so an edit or a removal counts at once. */
export async function enabledUpstreams(database: Database, keys: Buffer[]): Promise<McpUpstream[]> {
  return (await database.mcpServer.findMany({ where: { enabled: true }, orderBy: { name: "asc" } })).map((row) => upstream(row, keys));
}

export async function createMcpServer(database: Database, key: Buffer, input: CreateMcpServer): Promise<McpServerView> {
  if (await database.mcpServer.findUnique({ where: { name: input.name } })) throw nameTaken(input.name);
  const row = await database.mcpServer.create({
    data: { name: input.name, url: input.url, enabled: input.enabled ?? true, public: input.public ?? false, ...sealedHeaders(input.headers, key) },
  });
  return view(row);
}

export async function updateMcpServer(database: Database, key: Buffer, id: string, input: UpdateMcpServer): Promise<McpServerView> {
  const before = await database.mcpServer.findUnique({ where: { id } });
  if (!before) throw notFound();
  if (input.name && input.name !== before.name && (await database.mcpServer.findUnique({ where: { name: input.name } }))) throw nameTaken(input.name);
  const row = await database.mcpServer.update({
    where: { id },
    data: { name: input.name, url: input.url, enabled: input.enabled, public: input.public, ...sealedHeaders(input.headers, key) },
  });
  return view(row);
}

export async function deleteMcpServer(database: Database, id: string): Promise<void> {
  const deleted = await database.mcpServer.deleteMany({ where: { id } });
  if (deleted.count === 0) throw notFound();
}
