import Link from "next/link";
import { formatCompact, formatCost, formatNumber } from "@/app/_components/format";
import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Card, EmptyState, PageHeader } from "@/app/_components/ui";
import { channelPricing } from "@/lib/console/channel-pricing";
import { channelStats } from "@/lib/console/channel-stats";
import { dashboardStats, type ModelRow } from "@/lib/console/dashboard-stats";
import { requireUser } from "@/lib/console/require-session";
import { pageAddress } from "@/lib/console/return-path";
import { getRuntime } from "@/lib/runtime";
import { DailyCostChart, ModelChart, TimelineChart } from "./dashboard-charts";
import { readSelection, selectionDates } from "./dashboard-range";
import { RangePicker } from "./range-picker";
import { StorageCard } from "./storage-card";
import { TeamFilter } from "./teams/team-filter";
import { teamsOf } from "@/lib/teams/team-service";

export const dynamic = "force-dynamic";

function Stat({ label, value, hint, className }: { label: string; value: string; hint?: string; className?: string }) {
  return (
    <Card className={className}>
      <p className="text-sm text-zinc-500">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums">{value}</p>
      {hint && <p className="mt-1 text-xs text-zinc-500">{hint}</p>}
    </Card>
  );
}

const ms = (value: number | null) => (value === null ? "—" : `${formatNumber(value)} ms`);

const HOUR = 3_600_000;

export default async function DashboardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const user = await requireUser(pageAddress("/console", await searchParams));
  const runtime = await getRuntime();
  const admin = user.role === "admin";
  const now = Date.now();
  const params = await searchParams;
  const selection = readSelection(params, now);
  const range = { from: selection.from, to: selection.to };
  // The team filter: any team for an admin, the caller's own teams otherwise (members see their team's totals).
  const teams = admin ? await runtime.database.team.findMany({ select: { id: true, name: true }, orderBy: { name: "asc" } }) : await teamsOf(runtime, user.userId);
  const teamParam = typeof params.team === "string" ? params.team : undefined;
  const team = teams.find((candidate) => candidate.id === teamParam);
  const teamTokens = team ? { tokenIds: (await runtime.database.token.findMany({ where: { teamId: team.id }, select: { id: true } })).map((token) => token.id) } : undefined;
  const [stats, perChannel] = await Promise.all([dashboardStats(runtime, user, range, teamTokens), admin && !team ? channelStats(runtime, range) : Promise.resolve(null)]);
  const rangeQuery: Record<string, string> = selection.key === "custom" ? selectionDates(selection) : { range: selection.key };
  const per = stats.unit === "hour" ? "per hour" : "per day";
  const firstDay = stats.daily[0]?.day;
  const lastDay = stats.daily.at(-1)?.day;
  // The daily chart covers the range and at least the 30 days up to its end.
  const dailyTitle =
    selection.key === "custom"
      ? `Cost per day, ${firstDay} to ${lastDay} (UTC)`
      : `Cost per day, ${range.to.getTime() - range.from.getTime() > 30 * 24 * HOUR ? selection.title.toLowerCase() : "last 30 days"}`;
  const channelNames = new Map(runtime.channels.all().map((channel) => [channel.id, channel.name]));
  const pricing = channelPricing(runtime.channels.all());
  const errorRate = stats.totals.requests ? (stats.totals.errors / stats.totals.requests) * 100 : 0;
  return (
    <>
      <PageHeader
        title="Dashboard"
        description={`${selection.title}${team ? `, team ${team.name}` : admin ? ", all traffic" : ", your traffic"}. Costs come from the channels' prices, else the model catalogue's.`}
        actions={
          <div className="flex flex-col gap-2 sm:items-end">
            <RangePicker current={selection.key} {...selectionDates(selection)} today={new Date(now).toISOString().slice(0, 10)} team={team?.id} />
            <TeamFilter teams={teams} current={team?.id} range={rangeQuery} />
          </div>
        }
      />
      {selection.problem && (
        <p role="alert" className="mb-4 text-sm text-amber-700 dark:text-amber-300">
          {selection.problem} Showing the last 24 hours.
        </p>
      )}
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-5">
        <Stat label="Requests" value={formatNumber(stats.totals.requests)} />
        <Stat label="Tokens" value={formatCompact(stats.totals.tokens)} />
        <Stat label="Errors" value={formatNumber(stats.totals.errors)} hint={`${errorRate.toFixed(1)}% of requests`} />
        <Stat label="Avg latency" value={`${formatNumber(stats.totals.avgLatencyMs)} ms`} />
        <Stat
          className="col-span-2 lg:col-span-1"
          label="Cost"
          value={formatCost(stats.totals.costUsd, stats.totals.priced)}
          hint={stats.totals.priced ? "from channel and catalogue prices" : "no request had a price"}
        />
      </div>
      {stats.totals.requests === 0 ? (
        <div className="mt-6">
          <EmptyState title={selection.key === "custom" ? `No traffic from ${selection.title}` : `No traffic in the ${selection.title.toLowerCase()}`}>
            Create a token on the{" "}
            <Link className="text-indigo-600 hover:underline dark:text-indigo-400" href="/console/tokens">
              Tokens
            </Link>{" "}
            page or try a model in the{" "}
            <Link className="text-indigo-600 hover:underline dark:text-indigo-400" href="/console/playground">
              Playground
            </Link>
            ; charts fill in as requests arrive.
          </EmptyState>
        </div>
      ) : (
        <div className="mt-6 grid gap-4 xl:grid-cols-2">
          <Card>
            <h2 className="mb-3 text-sm font-semibold">Requests and errors {per}</h2>
            <TimelineChart data={stats.timeline} unit={stats.unit} series="requests" />
          </Card>
          <Card>
            <h2 className="mb-3 text-sm font-semibold">Tokens {per}</h2>
            <TimelineChart data={stats.timeline} unit={stats.unit} series="tokens" />
          </Card>
          <Card>
            <h2 className="mb-3 text-sm font-semibold">Requests by model</h2>
            <ModelChart data={stats.byModel} />
          </Card>
          <Card>
            <h2 className="mb-3 text-sm font-semibold">{dailyTitle}</h2>
            <DailyCostChart data={stats.daily} />
          </Card>
          <Card className="min-w-0">
            <h2 className="mb-3 text-sm font-semibold">By model</h2>
            <ModelTable rows={stats.byModel} testId="models-known" />
            {stats.unknownModels.length > 0 && (
              <>
                <h3 className="mt-4 mb-1 text-sm font-semibold">Unknown model names</h3>
                <p className="mb-2 text-xs text-zinc-500">No channel lists these: typos, retired models or probes. They were refused, not served.</p>
                <ModelTable rows={stats.unknownModels} testId="models-unknown" />
              </>
            )}
          </Card>
          <Card className="min-w-0">
            <h2 className="mb-3 text-sm font-semibold">By token</h2>
            <Table>
              <thead>
                <tr>
                  <Th>Token</Th>
                  <Th className="text-right">Requests</Th>
                  <Th className="text-right">Tokens</Th>
                  <Th className="text-right">Cost</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="usage-by-token">
                {stats.byToken.map((row) => (
                  <tr key={row.tokenId ?? "sessions"}>
                    <Td label="Token" wide className="xl:w-full xl:max-w-0">
                      <Truncate text={row.name} className="xl:min-w-[6rem]" />
                    </Td>
                    <Td label="Requests" className="tabular-nums xl:text-right">
                      {formatNumber(row.requests)}
                    </Td>
                    <Td label="Tokens" className="tabular-nums xl:text-right">
                      {formatCompact(row.tokens)}
                    </Td>
                    <Td label="Cost" className="tabular-nums xl:text-right">
                      {formatCost(row.costUsd, row.priced)}
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </Card>
          {perChannel && (
            <Card className="min-w-0 xl:col-span-2">
              <h2 className="mb-3 text-sm font-semibold">By channel</h2>
              <Table>
                <thead>
                  <tr>
                    <Th>Channel</Th>
                    <Th className="text-right">Requests</Th>
                    <Th className="text-right">Errors</Th>
                    <Th className="text-right">Latency p50</Th>
                    <Th className="text-right">Latency p95</Th>
                    <Th className="text-right">First token p50</Th>
                    <Th className="text-right">Cost</Th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid="usage-by-channel">
                  {[...perChannel.values()]
                    .sort((a, b) => b.requests - a.requests)
                    .map((row) => (
                      <tr key={row.channelId}>
                        <Td label="Channel" wide className="xl:w-full xl:max-w-0">
                          <Link className="block text-indigo-600 hover:underline dark:text-indigo-400" href={`/console/logs?channel=${encodeURIComponent(row.channelId)}`}>
                            <Truncate text={channelNames.get(row.channelId) ?? "deleted channel"} className="xl:min-w-[8rem]" />
                          </Link>
                        </Td>
                        <Td label="Requests" className="tabular-nums xl:text-right">
                          {formatNumber(row.requests)}
                        </Td>
                        <Td label="Errors" className="tabular-nums xl:text-right">
                          {formatNumber(row.errors)}
                        </Td>
                        <Td label="Latency p50" className="whitespace-nowrap tabular-nums xl:text-right">
                          {ms(row.latencyP50)}
                        </Td>
                        <Td label="Latency p95" className="whitespace-nowrap tabular-nums xl:text-right">
                          {ms(row.latencyP95)}
                        </Td>
                        <Td label="First token p50" className="whitespace-nowrap tabular-nums xl:text-right">
                          {ms(row.firstTokenP50)}
                        </Td>
                        <Td label="Cost" className="tabular-nums xl:text-right">
                          {formatCost(row.costUsd, pricing.channelHasPrices(row.channelId))}
                        </Td>
                      </tr>
                    ))}
                </tbody>
              </Table>
            </Card>
          )}
        </div>
      )}
      {admin && (
        <div className="mt-6">
          <StorageCard runtime={runtime} />
        </div>
      )}
    </>
  );
}

function ModelTable({ rows, testId }: { rows: ModelRow[]; testId: string }) {
  return (
    <Table>
      <thead>
        <tr>
          <Th>Model</Th>
          <Th className="text-right">Requests</Th>
          <Th className="text-right">Errors</Th>
          <Th className="text-right">Tokens</Th>
          <Th className="text-right">Cost</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800" data-testid={testId}>
        {rows.map((row) => (
          <tr key={row.model}>
            <Td label="Model" wide className="font-mono text-xs xl:w-full xl:max-w-0">
              <Truncate text={row.model} className="xl:min-w-[6rem]" />
            </Td>
            <Td label="Requests" className="tabular-nums xl:text-right">
              {formatNumber(row.requests)}
            </Td>
            <Td label="Errors" className="tabular-nums xl:text-right">
              {formatNumber(row.errors)}
            </Td>
            <Td label="Tokens" className="tabular-nums xl:text-right">
              {formatCompact(row.tokens)}
            </Td>
            <Td label="Cost" className="tabular-nums xl:text-right">
              {formatCost(row.costUsd, row.priced)}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
