import { diffChanges } from "@/lib/audit/audit-log";
import type { Runtime } from "@/lib/runtime";
import * as teams from "@/lib/teams/team-service";
import type { AdminContext } from "./with-admin";

// What the team routes (/api/admin/teams and /api/teams) write to the audit log: the team's
// fields, a membership's role and caps, each as [before, after].

type Audit = AdminContext["audit"];

export const teamSnapshot = async (runtime: Runtime, id: string) => teams.teamJson(await teams.findTeamRow(runtime, id));

async function memberSnapshot(runtime: Runtime, teamId: string, userId: string) {
  const row = await teams.findMember(runtime, teamId, userId);
  return row ? { role: row.role, limits: row.limits } : null;
}

const memberTarget = (teamId: string, userId: string) => ({ kind: "team_member", id: `${teamId}:${userId}`, name: null });

/** Runs a change to a team's membership and records it (add, update or remove: whichever side is null). */
export async function auditedMemberChange<T>(
  runtime: Runtime,
  audit: Audit,
  action: string,
  teamId: string,
  userId: string,
  input: object | undefined,
  change: () => Promise<T>,
): Promise<T> {
  const before = await memberSnapshot(runtime, teamId, userId);
  const result = await change();
  const after = await memberSnapshot(runtime, teamId, userId);
  await audit(action, memberTarget(teamId, userId), diffChanges(before, after, after ? input : undefined));
  return result;
}

/** Runs a change to a team's own fields and records it. */
export async function auditedTeamChange<T extends { id: string; name: string }>(
  runtime: Runtime,
  audit: Audit,
  action: "team.update",
  teamId: string,
  input: object,
  change: () => Promise<T>,
): Promise<T> {
  const before = await teamSnapshot(runtime, teamId);
  const result = await change();
  await audit(action, { kind: "team", id: teamId, name: result.name }, diffChanges(before, result, input));
  return result;
}
