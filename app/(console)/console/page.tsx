import Link from "next/link";
import { formatCompact, formatNumber } from "@/app/_components/format";
import { Card, EmptyState, PageHeader } from "@/app/_components/ui";
import { dashboardStats } from "@/lib/console/dashboard-stats";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { ModelChart, TimelineChart } from "./dashboard-charts";

export const dynamic = "force-dynamic";

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Card>
      <p className="text-sm text-zinc-500">{label}</p>
      <p className="mt-1 text-2xl font-semibold tabular-nums">{value}</p>
      {hint && <p className="mt-1 text-xs text-zinc-500">{hint}</p>}
    </Card>
  );
}

export default async function DashboardPage() {
  const user = await requireUser();
  const stats = await dashboardStats(await getRuntime(), user);
  const errorRate = stats.totals.requests ? (stats.totals.errors / stats.totals.requests) * 100 : 0;
  return (
    <>
      <PageHeader title="Dashboard" description={`Last 24 hours${user.role === "admin" ? ", all traffic" : ", your traffic"}.`} />
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-5">
        <Stat label="Requests" value={formatNumber(stats.totals.requests)} />
        <Stat label="Tokens" value={formatCompact(stats.totals.tokens)} />
        <Stat label="Errors" value={formatNumber(stats.totals.errors)} hint={`${errorRate.toFixed(1)}% of requests`} />
        <Stat label="Avg latency" value={`${formatNumber(stats.totals.avgLatencyMs)} ms`} />
        <Stat label="Cost" value={`$${stats.totals.costUsd.toFixed(stats.totals.costUsd >= 100 ? 0 : 4)}`} hint="from channel prices" />
      </div>
      {stats.totals.requests === 0 ? (
        <div className="mt-6">
          <EmptyState title="No traffic in the last 24 hours">
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
            <h2 className="mb-3 text-sm font-semibold">Requests and errors per hour</h2>
            <TimelineChart data={stats.timeline} series="requests" />
          </Card>
          <Card>
            <h2 className="mb-3 text-sm font-semibold">Tokens per hour</h2>
            <TimelineChart data={stats.timeline} series="tokens" />
          </Card>
          <Card className="xl:col-span-2">
            <h2 className="mb-3 text-sm font-semibold">Requests by model</h2>
            <ModelChart data={stats.byModel} />
          </Card>
        </div>
      )}
    </>
  );
}
