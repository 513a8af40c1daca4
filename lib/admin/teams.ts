import { jsonResponse } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { compileWindows } from "@/lib/limits/limit-windows";
import { endUserSubjectId } from "@/lib/teams/end-users";
import { addMemberSchema, createTeamSchema, updateMemberSchema, updateTeamSchema } from "@/lib/teams/team-schemas";
import * as teams from "@/lib/teams/team-service";
import { diffChanges } from "@/lib/audit/audit-log";
import { parseAdminBody } from "./parse-admin-body";
import { auditedMemberChange, auditedTeamChange, teamSnapshot } from "./team-audit";
import { withAdmin } from "./with-admin";

// /api/admin/teams: platform admins manage every team, its members and budgets.

const param = (params: Record<string, string>, name: string) => params[name] ?? "";

export const listTeams = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await teams.listTeams(runtime) }));

export const createTeam = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, createTeamSchema);
  const created = await teams.createTeam(runtime, input);
  await audit("team.create", { kind: "team", id: created.id, name: created.name }, diffChanges(null, created, input));
  return jsonResponse(201, created);
});

/** A team with each window's use and reset, its members with theirs, and its tokens. */
export const getTeam = withAdmin(async ({ runtime, request }) => jsonResponse(200, await teams.teamDetail(runtime, param(request.params, "id"))));

export const updateTeam = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, updateTeamSchema);
  const id = param(request.params, "id");
  return jsonResponse(200, await auditedTeamChange(runtime, audit, "team.update", id, input, () => teams.updateTeam(runtime, id, input)));
});

export const deleteTeam = withAdmin(async ({ runtime, request, audit }) => {
  const id = param(request.params, "id");
  const before = await teamSnapshot(runtime, id);
  await teams.deleteTeam(runtime, id);
  await audit("team.delete", { kind: "team", id, name: before.name }, diffChanges(before, null));
  return jsonResponse(200, { id, deleted: true });
});

export const addMember = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, addMemberSchema);
  const teamId = param(request.params, "id");
  return jsonResponse(201, await auditedMemberChange(runtime, audit, "team.member_add", teamId, input.userId, input, () => teams.addMember(runtime, teamId, input)));
});

export const updateMember = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, updateMemberSchema);
  const teamId = param(request.params, "id");
  const userId = param(request.params, "userId");
  return jsonResponse(200, await auditedMemberChange(runtime, audit, "team.member_update", teamId, userId, input, () => teams.updateMember(runtime, teamId, userId, input)));
});

export const removeMember = withAdmin(async ({ runtime, request, audit }) => {
  const teamId = param(request.params, "id");
  const userId = param(request.params, "userId");
  await auditedMemberChange(runtime, audit, "team.member_remove", teamId, userId, undefined, () => teams.removeMember(runtime, teamId, userId));
  return jsonResponse(200, { teamId, userId, deleted: true });
});

const MAX_END_USERS = 1000;

/** GET /api/admin/tokens/{id}/end-users: each end user the token served, most recent first, with their windows' use. */
export const listEndUsers = withAdmin(async ({ runtime, request }) => {
  const id = param(request.params, "id");
  const token = await runtime.database.token.findUnique({ where: { id }, include: { team: { select: { endUserLimits: true } } } });
  if (!token) throw new GatewayError("not_found", "No token with that id.", { code: "token_not_found" });
  const limitText = request.url.searchParams.get("limit");
  const limit = limitText === null ? 100 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_END_USERS) {
    throw new GatewayError("invalid_request", `limit must be a whole number from 1 to ${MAX_END_USERS}.`, { code: "invalid_value", param: "limit" });
  }
  const rows = await runtime.database.endUser.findMany({ where: { tokenId: id }, orderBy: { lastSeenAt: "desc" }, take: limit });
  const own = compileWindows(token.endUserLimits);
  const team = compileWindows(token.team?.endUserLimits);
  const data = await Promise.all(
    rows.map(async (row) => ({
      endUser: row.endUser,
      requests: row.requests,
      tokens: Number(row.tokens),
      usd: row.usd,
      limits: await runtime.limits.windowUsage({ kind: "end-user", id: endUserSubjectId(`token:${id}`, row.endUser), label: row.endUser }, { windows: own }),
      ...(token.teamId && team.length > 0
        ? { teamLimits: await runtime.limits.windowUsage({ kind: "end-user", id: endUserSubjectId(`team:${token.teamId}`, row.endUser), label: row.endUser }, { windows: team }) }
        : {}),
      firstSeenAt: row.firstSeenAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
    })),
  );
  return jsonResponse(200, { data });
});
