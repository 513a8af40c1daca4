import Link from "next/link";
import { formatNumber, formatUsd } from "@/app/_components/format";
import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Card, EmptyState, PageHeader } from "@/app/_components/ui";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { listTeams, teamsOf } from "@/lib/teams/team-service";
import { teamUsage } from "@/lib/teams/team-usage";
import { TeamSettingsForm } from "./team-forms";
import { WindowBars } from "./window-bars";

export const dynamic = "force-dynamic";

export default async function TeamsPage() {
  const user = await requireUser("/console/teams");
  const runtime = await getRuntime();
  const admin = user.role === "admin";
  const teams = admin ? (await listTeams(runtime)).map((team) => ({ ...team, role: null })) : await teamsOf(runtime, user.userId);
  const usage = await teamUsage(
    runtime,
    teams.map((team) => team.id),
  );
  return (
    <>
      <PageHeader
        title="Teams"
        description={
          admin
            ? "Every team: a shared budget, its members' caps, its models and tokens. Team owners and admins manage their own team's members and tokens."
            : "The teams you belong to. Owners and admins manage a team's members and tokens; members their own tokens."
        }
      />
      <div className="space-y-6">
        {teams.length === 0 ? (
          <EmptyState title="No teams yet">{admin ? "Create one below; add members, then create tokens for it." : "A platform admin adds you to a team."}</EmptyState>
        ) : (
          <Table>
            <thead>
              <tr>
                <Th>Team</Th>
                {!admin && <Th>Your role</Th>}
                <Th>Budget</Th>
                <Th className="text-right">Members</Th>
                <Th className="text-right">Tokens</Th>
                <Th>Models</Th>
                <Th>Last 30 days</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
              {teams.map((team) => {
                const used = usage.get(team.id);
                return (
                  <tr key={team.id} data-testid={`team-row-${team.name}`}>
                    <Td label="Team" wide className="font-medium">
                      <Link href={`/console/teams/${team.id}`} className="text-indigo-600 hover:underline dark:text-indigo-400">
                        <Truncate text={team.name} className="xl:max-w-[14rem]" />
                      </Link>
                    </Td>
                    {!admin && (
                      <Td label="Your role">
                        <Badge tone={team.role === "member" ? "zinc" : "indigo"}>{team.role}</Badge>
                      </Td>
                    )}
                    <Td label="Budget" wide>
                      <WindowBars windows={team.windows} label={team.name} />
                    </Td>
                    <Td label="Members" className="tabular-nums xl:text-right">
                      {team.memberCount}
                    </Td>
                    <Td label="Tokens" className="tabular-nums xl:text-right">
                      {team.tokenCount}
                    </Td>
                    <Td label="Models">
                      <Truncate text={team.models.length ? team.models.join(", ") : "every model"} className="xl:max-w-[12rem]" />
                    </Td>
                    <Td label="Last 30 days" className="text-xs tabular-nums">
                      {used ? `${formatNumber(used.requests)} ${used.requests === 1 ? "request" : "requests"} · ${formatUsd(used.costUsd)}` : "No requests"}
                    </Td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
        {admin && (
          <Card>
            <TeamSettingsForm />
          </Card>
        )}
      </div>
    </>
  );
}
