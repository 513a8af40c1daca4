import { formatDateTime, formatNumber, formatUsd } from "@/app/_components/format";
import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Card, PageHeader } from "@/app/_components/ui";
import { requireAdmin } from "@/lib/console/require-session";
import { readSettings } from "@/lib/console/settings";
import { lastDays, type UsageStats, usageStats } from "@/lib/console/usage-stats";
import { compileWindows, limitWindowsSchema } from "@/lib/limits/limit-windows";
import { getRuntime } from "@/lib/runtime";
import { AccountActions } from "./account-actions";
import { CreateUserForm, SignupToggle, UserLimitsForm } from "./user-forms";

export const dynamic = "force-dynamic";

function usedLine(row: UsageStats | undefined): string {
  return row ? `${formatNumber(row.requests)} ${row.requests === 1 ? "request" : "requests"} · ${formatUsd(row.costUsd)} in 30 days` : "No requests in 30 days";
}

export default async function UsersPage() {
  const admin = await requireAdmin("/console/users");
  const runtime = await getRuntime();
  const [users, settings] = await Promise.all([
    runtime.database.user.findMany({ orderBy: { createdAt: "asc" }, include: { _count: { select: { tokens: true } } } }),
    readSettings(runtime),
  ]);
  // Each account's last 30 days (every row of theirs: their tokens and their console sessions).
  const used = await usageStats(runtime, "user", lastDays(30));
  const windowUse = await Promise.all(users.map((user) => runtime.limits.windowUsage({ kind: "user", id: user.id }, { windows: compileWindows(user.limits) })));
  return (
    <>
      <PageHeader
        title="Users"
        description="Console accounts. Admins manage everything; users manage their own tokens. New accounts from sign-up start with 20 requests/min and 200,000 tokens a day for the Playground."
      />
      <div className="space-y-6">
        <Table>
          <thead>
            <tr>
              <Th>Email</Th>
              <Th>Role</Th>
              <Th className="text-right">Tokens</Th>
              <Th>Playground limits</Th>
              <Th>Created (UTC)</Th>
              <Th>Account</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {users.map((user, index) => (
              <tr key={user.id} data-testid={`user-row-${user.email}`}>
                <Td label="Email" wide className="font-medium">
                  <Truncate text={user.email} className="xl:max-w-[16rem]" />
                  <div className="text-xs font-normal text-zinc-500" data-testid="user-usage">
                    {usedLine(used.get(user.id))}
                  </div>
                </Td>
                <Td label="Role">
                  <span className="flex flex-wrap gap-1">
                    <Badge tone={user.role === "admin" ? "indigo" : "zinc"}>{user.role}</Badge>
                    {user.disabled && <Badge tone="zinc">disabled</Badge>}
                  </span>
                </Td>
                <Td label="Tokens" className="tabular-nums xl:text-right">
                  {user._count.tokens}
                </Td>
                <Td label="Playground limits" wide>
                  <UserLimitsForm
                    user={{
                      id: user.id,
                      rpm: user.rpm,
                      quotaTokens: user.quotaTokens === null ? null : Number(user.quotaTokens),
                      budgetUsd: user.budgetUsd,
                      quotaPeriod: user.quotaPeriod,
                      limits: limitWindowsSchema.safeParse(user.limits).data ?? [],
                      windowUse: windowUse[index]!,
                    }}
                  />
                </Td>
                <Td label="Created" className="text-xs">
                  <span className="whitespace-nowrap">{formatDateTime(user.createdAt.toISOString()).slice(0, 10)}</span>{" "}
                  <span className="whitespace-nowrap text-zinc-500">{formatDateTime(user.createdAt.toISOString()).slice(11, 16)}</span>
                </Td>
                <Td>
                  <AccountActions user={{ id: user.id, email: user.email, role: user.role, disabled: user.disabled }} self={user.id === admin.userId} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
        <div className="grid items-start gap-4 md:grid-cols-2">
          <Card>
            <CreateUserForm />
          </Card>
          <Card>
            <SignupToggle enabled={settings.openSignup} />
          </Card>
        </div>
      </div>
    </>
  );
}
