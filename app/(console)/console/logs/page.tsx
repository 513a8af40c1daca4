import Link from "next/link";
import { formatDateTime, formatNumber } from "@/app/_components/format";
import { Badge, Button, EmptyState, Input, PageHeader, Select, Table, Td, Th } from "@/app/_components/ui";
import { logFilterSchema, queryLogs } from "@/lib/console/log-query";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function statusTone(status: number) {
  return status < 400 ? "green" : status < 500 ? "amber" : "red";
}

export default async function LogsPage({ searchParams }: { searchParams: SearchParams }) {
  const user = await requireUser();
  const runtime = await getRuntime();
  const raw = Object.fromEntries(Object.entries(await searchParams).map(([key, value]) => [key, Array.isArray(value) ? value[0] : value]));
  const filter = logFilterSchema.parse(raw);
  const { rows, total, pages } = await queryLogs(runtime, user, filter);
  const tokens = await runtime.database.token.findMany({
    where: user.role === "admin" ? {} : { userId: user.userId },
    select: { id: true, name: true },
    orderBy: { name: "asc" },
  });
  const tokenNames = new Map(tokens.map((token) => [token.id, token.name]));
  const models = [...runtime.channels.models().keys()].sort();
  const pageLink = (page: number) => `?${new URLSearchParams({ ...(raw as Record<string, string>), page: String(page) })}`;

  return (
    <>
      <PageHeader title="Logs" description={`${formatNumber(total)} requests${user.role === "admin" ? "" : " made with your tokens"}.`} />
      <form className="mb-4 grid gap-2 sm:grid-cols-3 lg:grid-cols-6" aria-label="Filter logs">
        <Select name="token" defaultValue={filter.token ?? ""} aria-label="Token">
          <option value="">All tokens</option>
          {tokens.map((token) => (
            <option key={token.id} value={token.id}>
              {token.name}
            </option>
          ))}
        </Select>
        <Select name="model" defaultValue={filter.model ?? ""} aria-label="Model">
          <option value="">All models</option>
          {models.map((model) => (
            <option key={model}>{model}</option>
          ))}
        </Select>
        <Select name="status" defaultValue={filter.status ?? ""} aria-label="Status">
          <option value="">Any status</option>
          <option value="success">Success</option>
          <option value="error">Errors</option>
          <option value="client-error">4xx</option>
          <option value="server-error">5xx</option>
        </Select>
        <Input type="datetime-local" name="from" defaultValue={filter.from} aria-label="From (UTC)" />
        <Input type="datetime-local" name="to" defaultValue={filter.to} aria-label="To (UTC)" />
        <Button type="submit" variant="secondary">
          Filter
        </Button>
      </form>
      {rows.length === 0 ? (
        <EmptyState title="No requests match">Requests appear here as soon as they reach the gateway.</EmptyState>
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>Time (UTC)</Th>
              <Th>Endpoint</Th>
              <Th>Model</Th>
              <Th>Token</Th>
              <Th>Status</Th>
              <Th className="text-right">Prompt</Th>
              <Th className="text-right">Completion</Th>
              <Th className="text-right">Latency</Th>
              <Th className="text-right">TTFT</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {rows.map((row) => (
              <tr key={row.id} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
                <Td>
                  <Link href={`/console/logs/${row.id}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
                    {formatDateTime(row.createdAt.toISOString()).slice(5, 19)}
                  </Link>
                </Td>
                <Td className="font-mono text-xs">{row.endpoint}</Td>
                <Td>
                  {row.model ?? "—"} {row.stream && <Badge>stream</Badge>}
                </Td>
                <Td>
                  {row.tokenId ? (
                    (tokenNames.get(row.tokenId) ?? "deleted")
                  ) : (
                    <span className="text-zinc-400">{row.userId ? "console session" : "—"}</span>
                  )}
                </Td>
                <Td>
                  <Badge tone={statusTone(row.status)}>{row.status}</Badge>
                </Td>
                <Td className="text-right tabular-nums">{formatNumber(row.promptTokens)}</Td>
                <Td className="text-right tabular-nums">
                  {formatNumber(row.completionTokens)}
                  {row.usageEstimated && <span title="Counted with a tokenizer">*</span>}
                </Td>
                <Td className="text-right tabular-nums">{row.latencyMs} ms</Td>
                <Td className="text-right tabular-nums">{row.firstTokenMs === null ? "—" : `${row.firstTokenMs} ms`}</Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
        <span className="text-zinc-500">
          Page {filter.page} of {pages}
        </span>
        <div className="flex gap-2">
          {filter.page > 1 && (
            <Link className="rounded-md px-3 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700" href={pageLink(filter.page - 1)}>
              Previous
            </Link>
          )}
          {filter.page < pages && (
            <Link className="rounded-md px-3 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700" href={pageLink(filter.page + 1)}>
              Next
            </Link>
          )}
        </div>
      </nav>
    </>
  );
}
