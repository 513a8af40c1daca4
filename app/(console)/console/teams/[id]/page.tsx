import { notFound } from "next/navigation";
import { formatDateTime, formatNumber, formatUsd } from "@/app/_components/format";
import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Card, EmptyState, PageHeader } from "@/app/_components/ui";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { atLeast } from "@/lib/teams/team-permissions";
import { teamDetail, teamRoleOf } from "@/lib/teams/team-service";
import { teamUsage } from "@/lib/teams/team-usage";
import { AddMemberForm, DeleteTeamButton, MemberActions, TeamSettingsForm, TeamTokenToggle } from "../team-forms";
import { WindowBars } from "../window-bars";

export const dynamic = "force-dynamic";

export default async function TeamPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/console/teams/${id}`);
  const runtime = await getRuntime();
  const role = await teamRoleOf(runtime, user, id);
  if (!role) notFound();
  const manager = atLeast(role, "admin");
  const team = await teamDetail(runtime, id, manager ? undefined : user.userId);
  const used = (await teamUsage(runtime, [id])).get(id);
  const creators = new Map(team.members.map((member) => [member.userId, member.email]));
  return (
    <>
      <PageHeader
        title={team.name}
        description={`${team.models.length ? `Models: ${team.models.join(", ")}` : "Every model"}. ${used ? `${formatNumber(used.requests)} ${used.requests === 1 ? "request" : "requests"} and ${formatUsd(used.costUsd)} in the last 30 days.` : "No requests in the last 30 days."}`}
        actions={<Badge tone={role === "member" ? "zinc" : "indigo"}>{user.role === "admin" ? "platform admin" : role}</Badge>}
      />
      <div className="space-y-6">
        <Card>
          <h2 className="mb-3 text-base font-semibold">Budget</h2>
          <WindowBars windows={team.windows} label="team" />
        </Card>

        <section className="space-y-3" aria-label="Members">
          <h2 className="text-base font-semibold">{manager ? "Members" : "Your membership"}</h2>
          <Table>
            <thead>
              <tr>
                <Th>Member</Th>
                <Th>Role</Th>
                <Th>Cap</Th>
                <Th>Since (UTC)</Th>
                {manager && <Th>Manage</Th>}
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
              {team.members.map((member) => (
                <tr key={member.userId} data-testid={`member-row-${member.email}`}>
                  <Td label="Member" wide className="font-medium">
                    <Truncate text={member.email} className="xl:max-w-[16rem]" />
                  </Td>
                  <Td label="Role">
                    <Badge tone={member.role === "member" ? "zinc" : "indigo"}>{member.role}</Badge>
                  </Td>
                  <Td label="Cap" wide>
                    <WindowBars windows={member.windows} label={member.email} />
                  </Td>
                  <Td label="Since" className="text-xs whitespace-nowrap">
                    {formatDateTime(member.createdAt).slice(0, 10)}
                  </Td>
                  {manager && (
                    <Td label="Manage" wide>
                      <MemberActions teamId={id} member={member} canManageOwners={role === "owner"} />
                    </Td>
                  )}
                </tr>
              ))}
            </tbody>
          </Table>
        </section>

        <section className="space-y-3" aria-label="Team tokens">
          <h2 className="text-base font-semibold">{manager ? "Tokens" : "Your team tokens"}</h2>
          <p className="text-xs text-zinc-500">
            Create team tokens on the Tokens page (pick the team). Every request counts against the token, the team&rsquo;s budget and its creator&rsquo;s cap.
          </p>
          {team.tokens.length === 0 ? (
            <EmptyState title="No team tokens yet" />
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th>Name</Th>
                  <Th>Key</Th>
                  <Th>Created by</Th>
                  <Th>Status</Th>
                  <Th>Last used (UTC)</Th>
                  <Th>Actions</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
                {team.tokens.map((token) => (
                  <tr key={token.id} data-testid={`team-token-row-${token.name}`}>
                    <Td label="Name" wide className="font-medium">
                      <Truncate text={token.name} className="xl:max-w-[14rem]" />
                    </Td>
                    <Td label="Key" className="font-mono text-xs">
                      {token.keyPrefix}
                    </Td>
                    <Td label="Created by">
                      <Truncate text={(token.userId && creators.get(token.userId)) ?? "a former member"} className="xl:max-w-[14rem]" />
                    </Td>
                    <Td label="Status">
                      <Badge tone={token.enabled ? "green" : "zinc"}>{token.enabled ? "enabled" : "disabled"}</Badge>
                    </Td>
                    <Td label="Last used" className="text-xs whitespace-nowrap">
                      {token.lastUsedAt ? formatDateTime(token.lastUsedAt) : "never"}
                    </Td>
                    <Td>
                      <TeamTokenToggle teamId={id} token={token} />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </section>

        {manager && (
          <Card>
            <AddMemberForm teamId={id} canAddOwners={role === "owner"} />
          </Card>
        )}
        {user.role === "admin" && (
          <Card className="space-y-4">
            <TeamSettingsForm team={{ id, name: team.name, models: team.models, limits: team.limits, endUserLimits: team.endUserLimits }} />
            <DeleteTeamButton team={{ id, name: team.name }} />
          </Card>
        )}
      </div>
    </>
  );
}
