import Link from "next/link";
import { formatCost, formatDateTime, formatNumber } from "@/app/_components/format";
import { BreakablePath, Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Button, EmptyState, Input, PageHeader, Select, cx } from "@/app/_components/ui";
import { channelPricing } from "@/lib/console/channel-pricing";
import { COUNT_CAP, countLogs, parseLogQuery, queryLogPage, readableTokens, teamTokenIds, visibleTo } from "@/lib/console/log-query";
import { requireUser } from "@/lib/console/require-session";
import { pageAddress } from "@/lib/console/return-path";
import { getRuntime } from "@/lib/runtime";
import { naturalOrder } from "@/lib/console/natural-order";

export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

function statusTone(status: number) {
  return status < 400 ? "green" : status < 500 ? "amber" : "red";
}

/** A date as the datetime-local inputs show it (UTC, to the minute). */
const inputValue = (date: Date | undefined) => date?.toISOString().slice(0, 16);

export default async function LogsPage({ searchParams }: { searchParams: SearchParams }) {
  const user = await requireUser(pageAddress("/console/logs", await searchParams));
  const runtime = await getRuntime();
  const raw = Object.entries(await searchParams).flatMap(([key, value]) => {
    const text = Array.isArray(value) ? value[0] : value;
    return text ? [[key, text] as [string, string]] : [];
  });
  const parsed = parseLogQuery(new URLSearchParams(raw), true);
  const { filter, cursor } = parsed.ok ? parsed.query : { filter: {}, cursor: undefined };
  // A team's owners and admins also read the rows of its tokens, one token at a time.
  const tokens = await readableTokens(runtime, user);
  const visible = visibleTo(user, filter, teamTokenIds(tokens));
  const { rows, older, newer } = await queryLogPage(runtime, visible, cursor);
  const total = await countLogs(runtime, visible);
  const tokenNames = new Map(tokens.map((token) => [token.id, token.name]));
  const channels = await runtime.database.channel.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } });
  const channelNames = new Map(channels.map((channel) => [channel.id, channel.name]));
  const users = user.role === "admin" ? await runtime.database.user.findMany({ select: { id: true, email: true }, orderBy: { email: "asc" } }) : [];
  const pricing = channelPricing(runtime.channels.all());
  const models = [...runtime.channels.models().keys()].sort(naturalOrder);
  const query = Object.fromEntries(raw.filter(([key]) => key !== "cursor" && key !== "page"));
  const pageLink = (at: string | null) => `?${new URLSearchParams(at ? { ...query, cursor: at } : query)}`;
  const counted = total.more ? `More than ${formatNumber(COUNT_CAP)}` : formatNumber(total.count);

  return (
    <>
      <PageHeader
        title="Logs"
        description={`${counted} requests${user.role === "admin" ? "" : visible.user ? " made with your tokens" : " made with this team token"}.`}
        actions={
          <a
            className="rounded-md px-3 py-2 text-sm font-medium ring-1 ring-zinc-300 hover:bg-zinc-50 dark:ring-zinc-700 dark:hover:bg-zinc-800"
            href={`/console/logs/export?${new URLSearchParams(query)}`}
            download
          >
            Export CSV
          </a>
        }
      />
      <form className="mb-4 grid grid-cols-2 gap-2 lg:grid-cols-5" aria-label="Filter logs">
        <Select name="token" defaultValue={filter.token ?? ""} aria-label="Token">
          <option value="">All tokens</option>
          {tokens.map((token) => (
            <option key={token.id} value={token.id}>
              {token.team ? `${token.name} (team ${token.team})` : token.name}
            </option>
          ))}
        </Select>
        {user.role === "admin" && (
          <Select name="user" defaultValue={filter.user ?? ""} aria-label="User">
            <option value="">All users</option>
            {users.map((account) => (
              <option key={account.id} value={account.id}>
                {account.email}
              </option>
            ))}
          </Select>
        )}
        <Select name="model" defaultValue={filter.model ?? ""} aria-label="Model">
          <option value="">All models</option>
          {models.map((model) => (
            <option key={model}>{model}</option>
          ))}
        </Select>
        {user.role === "admin" && (
          <Select name="channel" defaultValue={filter.channel ?? ""} aria-label="Channel">
            <option value="">All channels</option>
            {channels.map((channel) => (
              <option key={channel.id} value={channel.id}>
                {channel.name}
              </option>
            ))}
          </Select>
        )}
        <Select name="status" defaultValue={filter.status ?? ""} aria-label="Status">
          <option value="">Any status</option>
          <option value="2xx">2xx success</option>
          <option value="4xx">4xx client error</option>
          <option value="5xx">5xx server error</option>
        </Select>
        <Input name="session" defaultValue={filter.session} placeholder="Session hash" aria-label="Session" className="font-mono" />
        <Input name="end_user" defaultValue={filter.endUser} placeholder="End user" aria-label="End user" />
        <Input type="datetime-local" name="from" defaultValue={inputValue(filter.from)} aria-label="From (UTC)" className="max-sm:col-span-2" />
        <Input type="datetime-local" name="to" defaultValue={inputValue(filter.to)} aria-label="To (UTC, exclusive)" className="max-sm:col-span-2" />
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
              <Th>
                Time
                <br />
                (UTC)
              </Th>
              <Th>Endpoint</Th>
              <Th>Model</Th>
              <Th>Channel · token</Th>
              <Th>Status</Th>
              <Th className="text-right">
                Tokens
                <br />
                in / out
              </Th>
              <Th className="text-right">Cost</Th>
              <Th className="text-right">
                Latency
                <br />
                TTFT
              </Th>
              <Th>Error</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {rows.map((row) => {
              const channel = row.channelId ? (channelNames.get(row.channelId) ?? "deleted channel") : null;
              const token = row.tokenId ? (tokenNames.get(row.tokenId) ?? "deleted token") : row.userId ? "console session" : null;
              return (
                <tr key={row.id} className="hover:bg-zinc-50 dark:hover:bg-zinc-800/50">
                  <Td label="Time">
                    <Link href={`/console/logs/${row.id}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
                      <span className="whitespace-nowrap">{formatDateTime(row.createdAt.toISOString()).slice(5, 10)}</span>{" "}
                      <span className="whitespace-nowrap">{formatDateTime(row.createdAt.toISOString()).slice(11, 19)}</span>
                    </Link>
                  </Td>
                  <Td label="Endpoint" className="font-mono text-xs">
                    <BreakablePath path={row.endpoint} />
                  </Td>
                  <Td label="Model" wide>
                    <Truncate text={row.model ?? "—"} className="xl:max-w-[9rem]" />
                    {row.servedModel && <Truncate text={`→ ${row.servedModel}`} className="text-xs text-zinc-500 xl:max-w-[9rem]" />}
                    {row.stream && <Badge>stream</Badge>}
                    {row.cacheStatus === "hit" && <Badge tone="green">cache hit</Badge>}
                  </Td>
                  <Td label="Channel · token" wide className="text-xs">
                    <Truncate text={channel ?? "—"} className={cx("xl:max-w-[8rem]", !channel && "text-zinc-400")} />
                    <Truncate text={token ?? "—"} className="text-zinc-500 xl:max-w-[8rem]" />
                  </Td>
                  <Td label="Status">
                    <Badge tone={statusTone(row.status)}>{row.status}</Badge>
                  </Td>
                  <Td label="Tokens" className="whitespace-nowrap tabular-nums xl:text-right">
                    {formatNumber(row.promptTokens)} / {formatNumber(row.completionTokens)}
                    {row.usageEstimated && <span title="Counted with a tokenizer">*</span>}
                  </Td>
                  <Td label="Cost" className="whitespace-nowrap tabular-nums xl:text-right" data-testid="log-cost">
                    {formatCost(row.costUsd, row.cacheStatus === "hit" || pricing.isPriced(row.channelId, row.servedModel ?? row.model))}
                  </Td>
                  <Td label="Latency" className="whitespace-nowrap tabular-nums xl:text-right">
                    {formatNumber(row.latencyMs)} ms
                    <span className="block text-xs text-zinc-500">{row.firstTokenMs === null ? "" : `TTFT ${formatNumber(row.firstTokenMs)} ms`}</span>
                  </Td>
                  {row.errorMessage ? (
                    <Td label="Error" wide className="text-xs text-red-600 xl:w-full xl:max-w-0 dark:text-red-400">
                      <Truncate text={row.errorMessage} className="xl:min-w-[5rem]" />
                    </Td>
                  ) : (
                    <td className="max-xl:hidden" />
                  )}
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
      <nav aria-label="Pages" className="mt-4 flex items-center justify-between text-sm">
        <span className="text-zinc-500">
          {rows.length > 0 ? `${formatDateTime(rows[0]!.createdAt.toISOString())} to ${formatDateTime(rows.at(-1)!.createdAt.toISOString())}` : ""}
        </span>
        <div className="flex gap-2">
          {newer && (
            <>
              <Link className="rounded-md px-3 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700" href={pageLink(null)}>
                Newest
              </Link>
              <Link className="rounded-md px-3 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700" href={pageLink(newer)}>
                Newer
              </Link>
            </>
          )}
          {older && (
            <Link className="rounded-md px-3 py-1 ring-1 ring-zinc-300 dark:ring-zinc-700" href={pageLink(older)}>
              Older
            </Link>
          )}
        </div>
      </nav>
    </>
  );
}
