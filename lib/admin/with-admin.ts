import { bearerToken } from "@/lib/canonical/bearer-token";
import { sameSecret } from "@/lib/crypto/same-secret";
import { readConsoleSession } from "@/lib/auth/console-session";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ApiHandler, ApiRequest, ApiResponse } from "@/lib/canonical/api-types";
import { isSameOrigin } from "@/lib/auth/same-origin";
import type { Runtime } from "@/lib/runtime";
import { type AuditActor, type AuditChanges, type AuditTarget, recordAudit } from "@/lib/audit/audit-log";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { renderAdminError } from "./admin-error";

export interface AdminContext {
  request: ApiRequest;
  runtime: Runtime;
  /** The console user acting, or null when the admin API key is used. */
  userId: string | null;
  /** Writes this change to the audit log, as this caller from this address. */
  audit(action: string, target: AuditTarget, changes: AuditChanges): Promise<void>;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/** Admin API auth: `Authorization: Bearer $ADMIN_API_KEY`, or an admin's console session. */
export function withAdmin(handler: (context: AdminContext) => Promise<ApiResponse>): ApiHandler<Runtime> {
  return async (request, runtime) => {
    try {
      const presented = bearerToken(request.headers.get("authorization"));
      let userId: string | null = null;
      let actor: AuditActor = { kind: "admin_key", id: "admin_key" };
      if (presented) {
        if (!sameSecret(presented, runtime.secrets.adminApiKey)) {
          throw new GatewayError("authentication", "Invalid admin API key.", { code: "invalid_api_key" });
        }
      } else {
        const session = await readConsoleSession(request.headers, runtime.secrets.authSecret, runtime.tokens);
        if (!session) {
          throw new GatewayError("authentication", "Admin API requires `Authorization: Bearer <ADMIN_API_KEY>` or a console session.", {
            code: "invalid_api_key",
          });
        }
        if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request.headers)) {
          throw new GatewayError("permission", "Cross-site requests cannot use the console session.", { code: "cross_site_request" });
        }
        if (session.role !== "admin") throw new GatewayError("permission", "This account is not an admin.", { code: "forbidden" });
        userId = session.userId;
        actor = { kind: "user", id: session.userId, email: session.email };
      }
      const ip = request.clientAddress?.() ?? request.headers.get(CLIENT_ADDRESS_HEADER);
      const audit = (action: string, target: AuditTarget, changes: AuditChanges) => recordAudit(runtime.database, { actor, action, target, changes, ip });
      return await handler({ request, runtime, userId, audit });
    } catch (error) {
      return renderAdminError(error);
    }
  };
}
