import { readConsoleSession } from "@/lib/auth/console-session";
import { isSameOrigin } from "@/lib/auth/same-origin";
import type { ApiHandler, ApiRequest, ApiResponse } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Runtime } from "@/lib/runtime";
import type { TeamRole } from "@/lib/teams/team-schemas";
import { atLeast } from "@/lib/teams/team-permissions";
import { teamRoleOf } from "@/lib/teams/team-service";
import { type AuditChanges, type AuditTarget, recordAudit } from "@/lib/audit/audit-log";
import { renderAdminError } from "./admin-error";

export interface TeamContext {
  request: ApiRequest;
  runtime: Runtime;
  /** The signed-in user acting. */
  userId: string;
  /** Their role in the team the path names (a platform admin acts as an owner); null on routes without a team. */
  role: TeamRole | null;
  /** Writes this change to the audit log, as this user from this address. */
  audit(action: string, target: AuditTarget, changes: AuditChanges): Promise<void>;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * The team routes' auth: a console session (same-origin for writes), and on routes under
 * /api/teams/{id} a role in that team of at least `least`: another team's routes answer 403.
 */
export function withTeamSession(handler: (context: TeamContext) => Promise<ApiResponse>, least: TeamRole | null = null): ApiHandler<Runtime> {
  return async (request, runtime) => {
    try {
      const session = await readConsoleSession(request.headers, runtime.secrets.authSecret, runtime.tokens);
      if (!session) throw new GatewayError("authentication", "The team routes need a console session: sign in first.", { code: "invalid_session" });
      if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request.headers)) {
        throw new GatewayError("permission", "Cross-site requests cannot use the console session.", { code: "cross_site_request" });
      }
      let role: TeamRole | null = null;
      const teamId = request.params.id;
      if (teamId !== undefined) {
        role = await teamRoleOf(runtime, session, teamId);
        if (role === null) throw new GatewayError("permission", "You are not a member of this team.", { code: "not_a_team_member" });
        if (least && !atLeast(role, least)) {
          throw new GatewayError("permission", `This needs the ${least} role in the team; yours is ${role}.`, { code: "team_role_required" });
        }
      }
      const actor = { kind: "user" as const, id: session.userId, email: session.email };
      const ip = request.clientAddress?.() ?? null;
      const audit = (action: string, target: AuditTarget, changes: AuditChanges) => recordAudit(runtime.database, { actor, action, target, changes, ip });
      return await handler({ request, runtime, userId: session.userId, role, audit });
    } catch (error) {
      return renderAdminError(error);
    }
  };
}
