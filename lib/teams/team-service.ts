import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Team as TeamRow, TeamMember as MemberRow } from "@/lib/db/generated/client";
import { compileWindows, limitWindowsSchema } from "@/lib/limits/limit-windows";
import type { Runtime } from "@/lib/runtime";
import { tokenJson } from "@/lib/tokens/token-service";
import type { AddMemberInput, CreateTeamInput, TeamRole, UpdateMemberInput, UpdateTeamInput } from "./team-schemas";

// Teams and their members, shared by the admin API and the team routes (/api/teams).

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);
const windowsOf = (value: unknown) => limitWindowsSchema.safeParse(value).data ?? [];

export function teamJson(row: TeamRow) {
  return {
    id: row.id,
    name: row.name,
    models: strings(row.models),
    limits: windowsOf(row.limits),
    endUserLimits: windowsOf(row.endUserLimits),
    mcp: strings(row.mcp),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function findTeamRow(runtime: Runtime, id: string): Promise<TeamRow> {
  const row = await runtime.database.team.findUnique({ where: { id } });
  if (!row) throw new GatewayError("not_found", "No team with that id.", { code: "team_not_found" });
  return row;
}

/** Every team, each with its windows' use and how many members and tokens it has. */
export async function listTeams(runtime: Runtime, where: { ids?: string[] } = {}) {
  const rows = await runtime.database.team.findMany({
    where: where.ids ? { id: { in: where.ids } } : {},
    orderBy: { createdAt: "asc" },
    include: { _count: { select: { members: true, tokens: true } } },
  });
  return Promise.all(
    rows.map(async (row) => ({
      ...teamJson(row),
      windows: await runtime.limits.windowUsage({ kind: "team", id: row.id }, { windows: compileWindows(row.limits) }),
      memberCount: row._count.members,
      tokenCount: row._count.tokens,
    })),
  );
}

async function memberJson(runtime: Runtime, row: MemberRow & { user: { email: string; name: string | null } }) {
  return {
    userId: row.userId,
    email: row.user.email,
    name: row.user.name,
    role: row.role as TeamRole,
    limits: windowsOf(row.limits),
    windows: await runtime.limits.windowUsage({ kind: "member", id: `${row.teamId}:${row.userId}` }, { windows: compileWindows(row.limits) }),
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * A team with each window's use and reset, its members (each with their own use) and its
 * tokens; `onlyUserId` narrows members and tokens to one member's own (a plain member's view).
 */
export async function teamDetail(runtime: Runtime, id: string, onlyUserId?: string) {
  const row = await findTeamRow(runtime, id);
  const userFilter = onlyUserId ? { userId: onlyUserId } : {};
  const [members, tokens, windows] = await Promise.all([
    runtime.database.teamMember.findMany({ where: { teamId: id, ...userFilter }, orderBy: { createdAt: "asc" }, include: { user: { select: { email: true, name: true } } } }),
    runtime.database.token.findMany({ where: { teamId: id, ...userFilter }, orderBy: { createdAt: "desc" } }),
    runtime.limits.windowUsage({ kind: "team", id }, { windows: compileWindows(row.limits) }),
  ]);
  return {
    ...teamJson(row),
    windows,
    members: await Promise.all(members.map((member) => memberJson(runtime, member))),
    tokens: tokens.map(tokenJson),
  };
}

function checkModels(input: { models?: string[] }) {
  return input.models === undefined ? undefined : [...new Set(input.models)];
}

export async function createTeam(runtime: Runtime, input: CreateTeamInput) {
  const row = await runtime.database.team.create({
    data: {
      name: input.name,
      models: checkModels(input) ?? [],
      limits: input.limits ?? [],
      endUserLimits: input.endUserLimits ?? [],
      mcp: input.mcp ?? [],
    },
  });
  return teamDetail(runtime, row.id);
}

export async function updateTeam(runtime: Runtime, id: string, input: UpdateTeamInput) {
  await findTeamRow(runtime, id);
  await runtime.database.team.update({
    where: { id },
    data: { name: input.name, models: checkModels(input), limits: input.limits, endUserLimits: input.endUserLimits, mcp: input.mcp },
  });
  // Team tokens carry the team's models and windows: every process reloads them.
  await runtime.invalidate("tokens");
  return teamDetail(runtime, id);
}

/** Deletes a team; its tokens are disabled first (requests on them get 401), and kept for the record. */
export async function deleteTeam(runtime: Runtime, id: string): Promise<void> {
  await findTeamRow(runtime, id);
  await runtime.database.$transaction([runtime.database.token.updateMany({ where: { teamId: id }, data: { enabled: false } }), runtime.database.team.delete({ where: { id } })]);
  await runtime.invalidate("tokens");
}

export async function findMember(runtime: Runtime, teamId: string, userId: string): Promise<MemberRow | null> {
  return runtime.database.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } } });
}

async function memberDetail(runtime: Runtime, teamId: string, userId: string) {
  const row = await runtime.database.teamMember.findUnique({
    where: { teamId_userId: { teamId, userId } },
    include: { user: { select: { email: true, name: true } } },
  });
  if (!row) throw new GatewayError("not_found", "That user is not a member of this team.", { code: "member_not_found" });
  return memberJson(runtime, row);
}

export async function addMember(runtime: Runtime, teamId: string, input: AddMemberInput) {
  await findTeamRow(runtime, teamId);
  if (!(await runtime.database.user.findUnique({ where: { id: input.userId }, select: { id: true } }))) {
    throw new GatewayError("invalid_request", "No user with that id.", { code: "user_not_found", param: "userId" });
  }
  if (await findMember(runtime, teamId, input.userId)) {
    throw new GatewayError("invalid_request", "That user is already a member of this team; change their role or limits with PATCH.", {
      code: "member_exists",
      param: "userId",
    });
  }
  await runtime.database.teamMember.create({ data: { teamId, userId: input.userId, role: input.role, limits: input.limits ?? [] } });
  await runtime.invalidate("tokens");
  return memberDetail(runtime, teamId, input.userId);
}

export async function updateMember(runtime: Runtime, teamId: string, userId: string, input: UpdateMemberInput) {
  if (!(await findMember(runtime, teamId, userId))) throw new GatewayError("not_found", "That user is not a member of this team.", { code: "member_not_found" });
  await runtime.database.teamMember.update({ where: { teamId_userId: { teamId, userId } }, data: { role: input.role, limits: input.limits } });
  // The member's caps travel with their team tokens.
  await runtime.invalidate("tokens");
  return memberDetail(runtime, teamId, userId);
}

/** Removes a member; the team tokens they created are disabled (requests on them get 401). */
export async function removeMember(runtime: Runtime, teamId: string, userId: string): Promise<void> {
  if (!(await findMember(runtime, teamId, userId))) throw new GatewayError("not_found", "That user is not a member of this team.", { code: "member_not_found" });
  await runtime.database.$transaction([
    runtime.database.token.updateMany({ where: { teamId, userId }, data: { enabled: false } }),
    runtime.database.teamMember.delete({ where: { teamId_userId: { teamId, userId } } }),
  ]);
  await runtime.invalidate("tokens");
}

/** A signed-in user's role in a team: a platform admin acts as its owner; null when not a member. */
export async function teamRoleOf(runtime: Runtime, user: { userId: string; role: "admin" | "user" }, teamId: string): Promise<TeamRole | null> {
  if (user.role === "admin") return (await runtime.database.team.findUnique({ where: { id: teamId }, select: { id: true } })) ? "owner" : null;
  return ((await findMember(runtime, teamId, user.userId))?.role as TeamRole | undefined) ?? null;
}

/** The teams a user belongs to, with their role in each. */
export async function teamsOf(runtime: Runtime, userId: string) {
  const memberships = await runtime.database.teamMember.findMany({ where: { userId }, select: { teamId: true, role: true } });
  const roles = new Map(memberships.map((membership) => [membership.teamId, membership.role as TeamRole]));
  const teams = await listTeams(runtime, { ids: [...roles.keys()] });
  return teams.map((team) => ({ ...team, role: roles.get(team.id)! }));
}
