import { jsonResponse } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import * as tokens from "@/lib/tokens/token-service";
import { addMemberSchema, updateMemberSchema, updateTeamSchema } from "@/lib/teams/team-schemas";
import * as teams from "@/lib/teams/team-service";
import { diffChanges } from "@/lib/audit/audit-log";
import { parseAdminBody } from "./parse-admin-body";
import { auditedMemberChange, auditedTeamChange } from "./team-audit";
import { atLeast, checkOwnerChange, checkTokenManager, forbidden } from "@/lib/teams/team-permissions";
import { withTeamSession, type TeamContext } from "./with-team-session";

// /api/teams: a team's owners and admins manage its tokens and members with their console
// session; members manage their own team tokens. The team's limits and models stay with
// the platform admins (/api/admin/teams).

const ALL = { kind: "all" } as const;
const teamIdOf = (context: TeamContext) => context.request.params.id ?? "";

/** GET /api/teams: the caller's teams, with their role in each. */
export const listMyTeams = withTeamSession(async ({ runtime, userId }) => jsonResponse(200, { data: await teams.teamsOf(runtime, userId) }));

/** GET /api/teams/{id}: a member sees the team's totals, their own membership and tokens; owners and admins see all. */
export const getMyTeam = withTeamSession(async (context) => {
  const detail = await teams.teamDetail(context.runtime, teamIdOf(context), atLeast(context.role, "admin") ? undefined : context.userId);
  return jsonResponse(200, { ...detail, role: context.role });
}, "member");

/** PATCH /api/teams/{id}: owners and admins may rename the team; its limits and models are the platform admins'. */
export const updateMyTeam = withTeamSession(async (context) => {
  const input = await parseAdminBody(context.request, updateTeamSchema);
  const { name, ...rest } = input;
  if (Object.values(rest).some((value) => value !== undefined)) {
    throw forbidden("A team's limits, models, end-user limits and MCP servers are changed by a platform admin.", "team_limits_admin_only");
  }
  const id = teamIdOf(context);
  return jsonResponse(200, await auditedTeamChange(context.runtime, context.audit, "team.update", id, { name }, () => teams.updateTeam(context.runtime, id, { name })));
}, "admin");

/** A team token the caller may manage: any of the team's for owners and admins, their own for members. */
async function manageableToken(context: TeamContext) {
  const token = await context.runtime.database.token.findFirst({ where: { id: context.request.params.tokenId ?? "", teamId: teamIdOf(context) } });
  if (!token) throw new GatewayError("not_found", "No token with that id in this team.", { code: "token_not_found" });
  checkTokenManager(context.role, context.userId, token);
  return token;
}

/** POST /api/teams/{id}/tokens: a team token created by the caller (the response is the only time its key is shown). */
export const createTeamToken = withTeamSession(async (context) => {
  const input = await parseAdminBody(context.request, tokens.createTokenSchema);
  const teamId = teamIdOf(context);
  if (input.teamId != null && input.teamId !== teamId) throw forbidden("A team route creates tokens for its own team only.");
  if (input.userId != null && input.userId !== context.userId) throw forbidden("A team token created here belongs to you: leave userId out.");
  const created = await tokens.createToken(context.runtime, { ...input, teamId, userId: context.userId }, context.userId);
  await context.audit("token.create", { kind: "token", id: created.id, name: created.name }, diffChanges(null, created, { ...input, teamId }));
  return jsonResponse(201, created);
}, "member");

/** PATCH /api/teams/{id}/tokens/{tokenId}: the same fields as the admin API, within the team. */
export const updateTeamToken = withTeamSession(async (context) => {
  const token = await manageableToken(context);
  const input = await parseAdminBody(context.request, tokens.updateTokenSchema);
  if ((input.teamId !== undefined && input.teamId !== token.teamId) || (input.userId !== undefined && input.userId !== token.userId)) {
    throw forbidden("A team token stays in its team and with its creator.");
  }
  const before = tokens.tokenJson(token);
  const updated = await tokens.updateToken(context.runtime, ALL, token.id, { ...input, teamId: undefined, userId: undefined });
  await context.audit("token.update", { kind: "token", id: token.id, name: updated.name }, diffChanges(before, updated, input));
  return jsonResponse(200, updated);
}, "member");

export const deleteTeamToken = withTeamSession(async (context) => {
  const token = await manageableToken(context);
  await tokens.deleteToken(context.runtime, ALL, token.id);
  await context.audit("token.delete", { kind: "token", id: token.id, name: token.name }, diffChanges(tokens.tokenJson(token), null));
  return jsonResponse(200, { id: token.id, deleted: true });
}, "member");

export const addTeamMember = withTeamSession(async (context) => {
  const input = await parseAdminBody(context.request, addMemberSchema);
  checkOwnerChange(context.role, [input.role]);
  const teamId = teamIdOf(context);
  return jsonResponse(
    201,
    await auditedMemberChange(context.runtime, context.audit, "team.member_add", teamId, input.userId, input, () => teams.addMember(context.runtime, teamId, input)),
  );
}, "admin");

export const updateTeamMember = withTeamSession(async (context) => {
  const input = await parseAdminBody(context.request, updateMemberSchema);
  const userId = context.request.params.userId ?? "";
  const existing = await teams.findMember(context.runtime, teamIdOf(context), userId);
  checkOwnerChange(context.role, [existing?.role, input.role]);
  const teamId = teamIdOf(context);
  return jsonResponse(
    200,
    await auditedMemberChange(context.runtime, context.audit, "team.member_update", teamId, userId, input, () => teams.updateMember(context.runtime, teamId, userId, input)),
  );
}, "admin");

export const removeTeamMember = withTeamSession(async (context) => {
  const userId = context.request.params.userId ?? "";
  const existing = await teams.findMember(context.runtime, teamIdOf(context), userId);
  checkOwnerChange(context.role, [existing?.role]);
  const teamId = teamIdOf(context);
  await auditedMemberChange(context.runtime, context.audit, "team.member_remove", teamId, userId, undefined, () => teams.removeMember(context.runtime, teamId, userId));
  return jsonResponse(200, { teamId: teamIdOf(context), userId, deleted: true });
}, "admin");
