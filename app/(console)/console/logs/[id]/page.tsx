import type { AttemptRecord } from "@/lib/usage/request-log-entry";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { formatCost, formatDateTime, formatNumber } from "@/app/_components/format";
import { Badge, Card, PageHeader } from "@/app/_components/ui";
import { channelPricing } from "@/lib/console/channel-pricing";
import { findLog } from "@/lib/console/log-query";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="py-2 sm:grid sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-4">
      <dt className="text-sm text-zinc-500">{label}</dt>
      <dd className="mt-1 min-w-0 text-sm [overflow-wrap:anywhere] sm:mt-0">{children}</dd>
    </div>
  );
}

export default async function LogDetailPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requireUser(`/console/logs/${encodeURIComponent((await params).id)}`);
  const runtime = await getRuntime();
  const row = await findLog(runtime, user, (await params).id);
  if (!row) notFound();
  const [token, channel] = await Promise.all([
    row.tokenId ? runtime.database.token.findUnique({ where: { id: row.tokenId }, select: { name: true } }) : null,
    row.channelId ? runtime.database.channel.findUnique({ where: { id: row.channelId }, select: { name: true, type: true } }) : null,
  ]);
  const warnings = Array.isArray(row.warnings) ? (row.warnings as string[]) : [];
  const attempts = Array.isArray(row.attempts) ? (row.attempts as unknown as AttemptRecord[]) : [];
  return (
    <>
      <p className="mb-2 text-sm">
        <Link href="/console/logs" className="text-indigo-600 hover:underline dark:text-indigo-400">
          ← Logs
        </Link>
      </p>
      <PageHeader title="Request detail" description={row.id} />
      <Card>
        <dl className="divide-y divide-zinc-200 dark:divide-zinc-800">
          <Item label="Time">{formatDateTime(row.createdAt.toISOString())}</Item>
          <Item label="Endpoint">
            <code>
              {row.method} {row.endpoint}
            </code>
          </Item>
          <Item label="Client format">{row.clientFormat}</Item>
          <Item label="Status">
            <Badge tone={row.status < 400 ? "green" : row.status < 500 ? "amber" : "red"}>{row.status}</Badge>
          </Item>
          <Item label="Model">
            {row.model ?? "—"}
            {row.servedModel && <span className="text-zinc-500"> → fallback {row.servedModel}</span>}
            {row.upstreamModel && row.upstreamModel !== (row.servedModel ?? row.model) && <span className="text-zinc-500"> → {row.upstreamModel}</span>}
            {row.stream && <span className="text-zinc-500"> (streamed)</span>}
          </Item>
          <Item label="Channel">{channel ? `${channel.name} (${channel.type})` : row.channelId ? `deleted channel (${row.channelId})` : "—"}</Item>
          <Item label="Token">{token?.name ?? (row.tokenId ? "deleted token" : "console session")}</Item>
          <Item label="Tokens">
            {formatNumber(row.promptTokens)} prompt ({formatNumber(row.cachedTokens)} cached) · {formatNumber(row.completionTokens)} completion ({formatNumber(row.reasoningTokens)}{" "}
            reasoning){row.usageEstimated && " · counted with a tokenizer"}
          </Item>
          <Item label="Cost">
            <span data-testid="log-cost">
              {formatCost(row.costUsd, row.cacheStatus === "hit" || channelPricing(runtime.channels.all()).isPriced(row.channelId, row.servedModel ?? row.model))}
              {row.costUsd > 0 && <span className="text-zinc-500"> (${row.costUsd.toFixed(6)})</span>}
            </span>
          </Item>
          <Item label="Response cache">
            <span data-testid="log-cache">
              {row.cacheStatus === "hit"
                ? `Hit: answered from the cache, saving ${row.cacheSavedUsd > 0 ? `$${row.cacheSavedUsd.toFixed(6)}` : "the upstream call"}`
                : row.cacheStatus === "miss"
                  ? "Miss: asked the upstream and kept the answer"
                  : "Not used"}
            </span>
          </Item>
          <Item label="Latency">{row.latencyMs} ms</Item>
          <Item label="Time to first token">{row.firstTokenMs === null ? "—" : `${row.firstTokenMs} ms`}</Item>
          {row.sessionHash && (
            <Item label="Session">
              <Link
                href={`/console/logs?${new URLSearchParams({ session: row.sessionHash })}`}
                className="font-mono text-xs text-indigo-600 hover:underline dark:text-indigo-400"
                title="A hash of the client's session (session affinity), never the session id. Shows the session's requests."
              >
                {row.sessionHash}
              </Link>
            </Item>
          )}
          {row.endUser && (
            <Item label="End user">
              <Link
                href={`/console/logs?${new URLSearchParams(row.tokenId ? { end_user: row.endUser, token: row.tokenId } : { end_user: row.endUser })}`}
                className="break-all text-indigo-600 hover:underline dark:text-indigo-400"
                title="The app's end user the request named (user, safety_identifier, metadata.user_id or x-end-user-id). Shows their requests on this token."
              >
                {row.endUser}
              </Link>
            </Item>
          )}
          <Item label="Warnings">
            {warnings.length ? (
              <ul className="list-disc pl-4">
                {warnings.map((warning) => (
                  <li key={warning}>{warning}</li>
                ))}
              </ul>
            ) : (
              "None"
            )}
          </Item>
          <Item label="Attempts">
            {attempts.length ? (
              <ol className="list-decimal pl-4" data-testid="log-attempts">
                {attempts.map((attempt, index) => (
                  <li key={index}>
                    {attempt.channelName}
                    {attempt.model !== row.model && ` (${attempt.model})`}
                    {attempt.keyHint && <span className="font-mono"> {attempt.keyHint}</span>} · {attempt.status === 0 ? "no answer" : `HTTP ${attempt.status}`} ·{" "}
                    {attempt.latencyMs} ms
                    {attempt.error && <span className="text-red-600 dark:text-red-400"> · {attempt.error}</span>}
                  </li>
                ))}
              </ol>
            ) : (
              "No upstream call"
            )}
          </Item>
          <Item label="Error">{row.errorMessage ? <span className="text-red-600 dark:text-red-400">{row.errorMessage}</span> : "None"}</Item>
        </dl>
      </Card>
    </>
  );
}
