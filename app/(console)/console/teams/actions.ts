"use server";

import { revalidatePath } from "next/cache";
import type { z } from "zod";
import { toGatewayError } from "@/lib/canonical/gateway-error";
import { requireAdmin, requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { atLeast, checkOwnerChange, checkTokenManager, forbidden } from "@/lib/teams/team-permissions";
import { addMemberSchema, createTeamSchema, updateMemberSchema, updateTeamSchema, type TeamRole } from "@/lib/teams/team-schemas";
import * as teams from "@/lib/teams/team-service";
import { tokenJson, updateToken } from "@/lib/tokens/token-service";
import { auditedMemberChange, auditedTeamChange, teamSnapshot } from "@/lib/admin/team-audit";
import { type AuditChanges, type AuditTarget, diffChanges } from "@/lib/audit/audit-log";
import type { ConsoleSession } from "@/lib/auth/console-session";
import { consoleAudit } from "@/lib/console/console-audit";

// The Teams page's actions: platform admins create and change teams; a team's owners and
// admins manage its members and tokens, members their own tokens (the same rules as /api/teams).

export type TeamActionResult = { ok: true; id?: string } | { ok: false; error: string };

function fieldError(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "input"}: ${issue.message}` : "Invalid input";
}

async function attempt(work: () => Promise<TeamActionResult>): Promise<TeamActionResult> {
  try {
    const result = await work();
    revalidatePath("/console/teams", "layout");
    return result;
  } catch (error) {
    return { ok: false, error: toGatewayError(error).message };
  }
}

/** The signed-in user's role in the team, or a 403's message. */
async function roleIn(teamId: string, least: TeamRole) {
  const user = await requireUser();
  const runtime = await getRuntime();
  const role = await teams.teamRoleOf(runtime, user, teamId);
  if (!atLeast(role, least)) throw forbidden(role ? `This needs the ${least} role in the team; yours is ${role}.` : "You are not a member of this team.");
  return { user, runtime, role };
}

/** The audit log writer for this console user's changes. */
const auditAs = (user: ConsoleSession) => (action: string, target: AuditTarget, changes: AuditChanges) => consoleAudit(user, action, target, changes);

export async function createTeamAction(input: unknown): Promise<TeamActionResult> {
  const admin = await requireAdmin();
  const parsed = createTeamSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
  return attempt(async () => {
    const created = await teams.createTeam(await getRuntime(), parsed.data);
    await consoleAudit(admin, "team.create", { kind: "team", id: created.id, name: created.name }, diffChanges(null, created, parsed.data));
    return { ok: true, id: created.id };
  });
}

export async function updateTeamAction(teamId: string, input: unknown): Promise<TeamActionResult> {
  const admin = await requireAdmin();
  const parsed = updateTeamSchema.safeParse(input);
  if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
  return attempt(async () => {
    const runtime = await getRuntime();
    await auditedTeamChange(runtime, auditAs(admin), "team.update", teamId, parsed.data, () => teams.updateTeam(runtime, teamId, parsed.data));
    return { ok: true };
  });
}

export async function deleteTeamAction(teamId: string): Promise<TeamActionResult> {
  const admin = await requireAdmin();
  return attempt(async () => {
    const runtime = await getRuntime();
    const before = await teamSnapshot(runtime, teamId);
    await teams.deleteTeam(runtime, teamId);
    await consoleAudit(admin, "team.delete", { kind: "team", id: teamId, name: before.name }, diffChanges(before, null));
    return { ok: true };
  });
}

/** Adds an account, named by its email, to the team. */
export async function addMemberAction(teamId: string, input: { email: string; role: string; limits: unknown }): Promise<TeamActionResult> {
  return attempt(async () => {
    const { runtime, role, user } = await roleIn(teamId, "admin");
    const account = await runtime.database.user.findUnique({ where: { email: input.email.trim().toLowerCase() }, select: { id: true } });
    if (!account) return { ok: false, error: `No account with the email ${input.email}.` };
    const parsed = addMemberSchema.safeParse({ userId: account.id, role: input.role, limits: input.limits });
    if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
    checkOwnerChange(role, [parsed.data.role]);
    await auditedMemberChange(runtime, auditAs(user), "team.member_add", teamId, account.id, parsed.data, () => teams.addMember(runtime, teamId, parsed.data));
    return { ok: true };
  });
}

export async function updateMemberAction(teamId: string, userId: string, input: unknown): Promise<TeamActionResult> {
  return attempt(async () => {
    const { runtime, role, user } = await roleIn(teamId, "admin");
    const parsed = updateMemberSchema.safeParse(input);
    if (!parsed.success) return { ok: false, error: fieldError(parsed.error) };
    checkOwnerChange(role, [(await teams.findMember(runtime, teamId, userId))?.role, parsed.data.role]);
    await auditedMemberChange(runtime, auditAs(user), "team.member_update", teamId, userId, parsed.data, () => teams.updateMember(runtime, teamId, userId, parsed.data));
    return { ok: true };
  });
}

export async function removeMemberAction(teamId: string, userId: string): Promise<TeamActionResult> {
  return attempt(async () => {
    const { runtime, role, user } = await roleIn(teamId, "admin");
    checkOwnerChange(role, [(await teams.findMember(runtime, teamId, userId))?.role]);
    await auditedMemberChange(runtime, auditAs(user), "team.member_remove", teamId, userId, undefined, () => teams.removeMember(runtime, teamId, userId));
    return { ok: true };
  });
}

export async function setTeamTokenEnabledAction(teamId: string, tokenId: string, enabled: boolean): Promise<TeamActionResult> {
  return attempt(async () => {
    const { runtime, role, user } = await roleIn(teamId, "member");
    const token = await runtime.database.token.findFirst({ where: { id: tokenId, teamId } });
    if (!token) return { ok: false, error: "No token with that id in this team." };
    checkTokenManager(role, user.userId, token);
    const updated = await updateToken(runtime, { kind: "all" }, token.id, { enabled });
    await consoleAudit(user, "token.update", { kind: "token", id: token.id, name: token.name }, diffChanges(tokenJson(token), updated, { enabled }));
    return { ok: true };
  });
}
