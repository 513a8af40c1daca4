import Link from "next/link";
import { formatDateTime } from "@/app/_components/format";
import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Button, EmptyState, ErrorNote, Input, PageHeader } from "@/app/_components/ui";
import { listAudit } from "@/lib/audit/audit-log";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin } from "@/lib/console/require-session";
import { pageAddress } from "@/lib/console/return-path";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

const FILTERS = ["actor", "target", "action"] as const;
const PAGE = 50;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;

/** A value as one short line: JSON, cut to a readable length. */
function shown(value: unknown): string {
  if (value === null || value === undefined) return "—";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function tone(action: string) {
  if (action.endsWith("sign_in_failed")) return "red" as const;
  if (action.endsWith(".delete")) return "amber" as const;
  if (action.endsWith(".create")) return "green" as const;
  return "indigo" as const;
}

export default async function AuditPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  await requireAdmin(pageAddress("/console/audit", params));
  const runtime = await getRuntime();
  const query = { actor: first(params.actor), target: first(params.target), action: first(params.action), cursor: first(params.cursor) };
  let page: Awaited<ReturnType<typeof listAudit>> = { data: [], next_cursor: null };
  let error: string | null = null;
  try {
    page = await listAudit(runtime.database, { ...query, limit: PAGE });
  } catch (thrown) {
    error = toGatewayError(thrown).message;
  }
  const filtered = FILTERS.some((name) => query[name]);
  const link = (extra: Record<string, string | undefined>) => {
    const search = new URLSearchParams(Object.entries({ ...query, cursor: undefined, ...extra }).flatMap(([key, value]) => (value ? [[key, value]] : [])));
    return `/console/audit${search.size ? `?${search}` : ""}`;
  };
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every change made through the admin API or the console, and every sign-in, newest first. Secrets show as [redacted]. Kept for AUDIT_RETENTION (a year unless set)."
      />
      <form method="get" className="mb-4 flex flex-wrap items-end gap-2" aria-label="Filter the audit log">
        <label className="text-xs text-zinc-500">
          Actor id
          <Input name="actor" defaultValue={query.actor ?? ""} placeholder="admin_key or a user id" className="w-48" />
        </label>
        <label className="text-xs text-zinc-500">
          Target
          <Input name="target" defaultValue={query.target ?? ""} placeholder="channel:cm…" className="w-48" />
        </label>
        <label className="text-xs text-zinc-500">
          Action
          <Input name="action" defaultValue={query.action ?? ""} placeholder="token.update" className="w-40" />
        </label>
        <Button type="submit" variant="secondary">
          Filter
        </Button>
        {filtered && (
          <Link href="/console/audit" className="px-2 py-2 text-sm text-indigo-700 dark:text-indigo-300">
            Clear
          </Link>
        )}
      </form>
      {error && <ErrorNote>{error}</ErrorNote>}
      {page.data.length === 0 ? (
        <EmptyState title={filtered ? "Nothing matches these filters" : "No changes yet"} />
      ) : (
        <Table>
          <thead>
            <tr>
              <Th>When (UTC)</Th>
              <Th>Who</Th>
              <Th>Action</Th>
              <Th>Target</Th>
              <Th>Changes</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {page.data.map((row) => (
              <tr key={row.id} data-testid="audit-row">
                <Td label="When" className="text-xs">
                  <span className="whitespace-nowrap">{formatDateTime(row.at).slice(0, 10)}</span>{" "}
                  <span className="whitespace-nowrap text-zinc-500">{formatDateTime(row.at).slice(11, 19)}</span>
                </Td>
                <Td label="Who" className="text-sm">
                  <Link href={link({ actor: row.actor.id })} className="hover:underline">
                    <Truncate text={row.actor.email ?? (row.actor.kind === "admin_key" ? "Admin API key" : row.actor.id)} className="xl:max-w-[12rem]" />
                  </Link>
                  {row.ip && <div className="text-xs text-zinc-500">{row.ip}</div>}
                </Td>
                <Td label="Action" wide>
                  <Link href={link({ action: row.action })}>
                    <Badge tone={tone(row.action)}>{row.action}</Badge>
                  </Link>
                </Td>
                <Td label="Target" className="text-sm">
                  <Link href={link({ target: `${row.target.kind}:${row.target.id}` })} className="hover:underline">
                    <span className="text-zinc-500">{row.target.kind}</span> <Truncate text={row.target.name ?? row.target.id} className="xl:max-w-[14rem]" />
                  </Link>
                </Td>
                <Td label="Changes" wide className="text-xs">
                  {Object.keys(row.changes as object).length === 0 && <span className="text-zinc-500">—</span>}
                  <ul className="space-y-0.5">
                    {Object.entries(row.changes as Record<string, [unknown, unknown]>).map(([field, [from, to]]) => (
                      <li key={field} className="break-words">
                        <span className="font-medium">{field}</span>: <span className="text-zinc-500">{shown(from)}</span> → {shown(to)}
                      </li>
                    ))}
                  </ul>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <div className="mt-4 flex gap-3 text-sm">
        {query.cursor && (
          <Link href={link({})} className="text-indigo-700 dark:text-indigo-300">
            Newest
          </Link>
        )}
        {page.next_cursor && (
          <Link href={link({ cursor: page.next_cursor })} className="text-indigo-700 dark:text-indigo-300" data-testid="audit-older">
            Older
          </Link>
        )}
      </div>
    </>
  );
}
