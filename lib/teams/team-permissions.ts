import { GatewayError } from "@/lib/canonical/gateway-error";
import type { TeamRole } from "./team-schemas";

// Who may do what inside a team, for the team routes and the console alike.

const RANK: Record<TeamRole, number> = { member: 0, admin: 1, owner: 2 };

/** Whether `role` is at least `least`. */
export function atLeast(role: TeamRole | null, least: TeamRole): boolean {
  return role !== null && RANK[role] >= RANK[least];
}

export const forbidden = (message: string, code = "forbidden") => new GatewayError("permission", message, { code });

/** Only an owner gives, changes or takes away the owner role. */
export function checkOwnerChange(actor: TeamRole | null, roles: (TeamRole | string | null | undefined)[]): void {
  if (roles.includes("owner") && actor !== "owner") throw forbidden("Only a team owner manages the team's owners.");
}

/** Owners and admins manage any of the team's tokens; members only those they created. */
export function checkTokenManager(actor: TeamRole | null, actorUserId: string, token: { userId: string | null }): void {
  if (!atLeast(actor, "admin") && token.userId !== actorUserId) throw forbidden("Members manage only the team tokens they created.");
}
