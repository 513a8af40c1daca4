import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Card, EmptyState, PageHeader } from "@/app/_components/ui";
import { requireAdmin } from "@/lib/console/require-session";
import { mcpServerStats } from "@/lib/mcp/mcp-server-stats";
import { listMcpServers } from "@/lib/mcp/mcp-servers";
import { getRuntime } from "@/lib/runtime";
import { readGrants } from "@/lib/tokens/mcp-grants";
import { CreateMcpServerForm, McpServerActions } from "./mcp-forms";

export const dynamic = "force-dynamic";

const DAY_MS = 24 * 3_600_000;

export default async function McpPage() {
  await requireAdmin("/console/mcp");
  const runtime = await getRuntime();
  const servers = await listMcpServers(runtime.database);
  const [stats, tokens] = await Promise.all([
    mcpServerStats(
      runtime.logStore,
      servers.map((server) => server.name),
      new Date(Date.now() - DAY_MS),
    ),
    runtime.database.token.findMany({ select: { id: true, name: true, keyPrefix: true, mcp: true }, orderBy: { createdAt: "desc" }, take: 200 }),
  ]);
  const tokenChoices = tokens.map((token) => ({ id: token.id, label: `${token.name} (${token.keyPrefix}…)`, grants: readGrants(token.mcp) }));
  return (
    <>
      <PageHeader
        title="MCP servers"
        description="Remote MCP servers behind the gateway: agents connect to /mcp with their gateway token and see the tools they were granted, named <server>__<tool>. Upstream headers are encrypted and never shown again."
      />
      <div className="space-y-6">
        {servers.length === 0 ? (
          <EmptyState title="No MCP servers yet">Add one below, test it, then grant its tools to tokens.</EmptyState>
        ) : (
          <Table>
            <thead>
              <tr>
                <Th>Server</Th>
                <Th>Headers</Th>
                <Th>Calls (24 h)</Th>
                <Th>Actions</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
              {servers.map((server) => {
                const stat = stats.get(server.name);
                return (
                  <tr key={server.id} data-testid="mcp-server-row" className="align-top">
                    <Td label="Server" wide>
                      <div className="flex flex-wrap items-center gap-2 font-medium">
                        <code>{server.name}</code>
                        {!server.enabled && <Badge tone="zinc">disabled</Badge>}
                        {server.public && <Badge tone="indigo">public</Badge>}
                      </div>
                      <Truncate text={server.url} className="text-xs text-zinc-500 xl:max-w-[22rem]" />
                    </Td>
                    <Td label="Headers" className="text-xs">
                      {server.headers.length === 0 ? <span className="text-zinc-500">none</span> : server.headers.map((name) => <Badge key={name}>{name}</Badge>)}
                    </Td>
                    <Td label="Calls (24 h)" className="whitespace-nowrap text-sm tabular-nums">
                      <span data-testid="mcp-server-calls">{stat?.calls ?? 0} calls</span>
                      {(stat?.errors ?? 0) > 0 && <span className="text-red-700 dark:text-red-400"> · {stat?.errors} errors</span>}
                      {stat?.averageLatencyMs != null && <div className="text-xs text-zinc-500">{stat.averageLatencyMs} ms average</div>}
                    </Td>
                    <Td label="Actions" wide>
                      <McpServerActions server={server} tokens={tokenChoices} />
                    </Td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
        <Card className="max-w-2xl">
          <CreateMcpServerForm />
        </Card>
      </div>
    </>
  );
}
