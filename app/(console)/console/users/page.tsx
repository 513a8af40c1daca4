import { formatDateTime } from "@/app/_components/format";
import { Badge, Card, PageHeader, Table, Td, Th } from "@/app/_components/ui";
import { requireAdmin } from "@/lib/console/require-session";
import { readSettings } from "@/lib/console/settings";
import { getRuntime } from "@/lib/runtime";
import { AccountActions } from "./account-actions";
import { CreateUserForm, SignupToggle, UserLimitsForm } from "./user-forms";

export const dynamic = "force-dynamic";

export default async function UsersPage() {
  const admin = await requireAdmin();
  const runtime = await getRuntime();
  const [users, settings] = await Promise.all([
    runtime.database.user.findMany({ orderBy: { createdAt: "asc" }, include: { _count: { select: { tokens: true } } } }),
    readSettings(runtime),
  ]);
  return (
    <>
      <PageHeader title="Users" description="Console accounts. Admins manage everything; users manage their own tokens. New accounts from sign-up start with 20 requests/min and 200,000 tokens a day for the Playground." />
      <div className="grid gap-6 lg:grid-cols-[1fr_22rem]">
        <Table>
          <thead>
            <tr>
              <Th>Email</Th>
              <Th>Role</Th>
              <Th>Tokens</Th>
              <Th>Playground limits</Th>
              <Th>Created</Th>
              <Th>Account</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
            {users.map((user) => (
              <tr key={user.id}>
                <Td className="font-medium">{user.email}</Td>
                <Td>
                  <Badge tone={user.role === "admin" ? "indigo" : "zinc"}>{user.role}</Badge>
                  {user.disabled && (
                    <span className="ml-1">
                      <Badge tone="zinc">disabled</Badge>
                    </span>
                  )}
                </Td>
                <Td>{user._count.tokens}</Td>
                <Td>
                  <UserLimitsForm
                    user={{
                      id: user.id,
                      rpm: user.rpm,
                      quotaTokens: user.quotaTokens === null ? null : Number(user.quotaTokens),
                      budgetUsd: user.budgetUsd,
                      quotaPeriod: user.quotaPeriod,
                    }}
                  />
                </Td>
                <Td className="whitespace-nowrap">{formatDateTime(user.createdAt.toISOString())}</Td>
                <Td>
                  <AccountActions user={{ id: user.id, email: user.email, role: user.role, disabled: user.disabled }} self={user.id === admin.userId} />
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
        <div className="space-y-4">
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
