import type { ApiHandler } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { readConsoleSession } from "@/lib/auth/console-session";
import { renderAdminError } from "@/lib/admin/admin-error";
import type { Runtime } from "@/lib/runtime";
import { answerUsageReport, parseUsageReport } from "./usage-report";

/**
 * GET /api/usage: the signed-in console user's own usage (their tokens' and their console
 * sessions'), with the parameters of /api/admin/usage. Admins too see only their own here.
 */
export const handleOwnUsage: ApiHandler<Runtime> = async (request, runtime) => {
  try {
    const session = await readConsoleSession(request.headers, runtime.secrets.authSecret, runtime.tokens);
    if (!session) throw new GatewayError("authentication", "Sign in to the console first: /api/usage reads the console session.", { code: "no_session" });
    const report = parseUsageReport(request.url.searchParams);
    if (report.query.userId !== undefined && report.query.userId !== session.userId) {
      throw new GatewayError("permission", "/api/usage shows only your own usage; admins read everyone's at /api/admin/usage.", { param: "user", code: "forbidden" });
    }
    return await answerUsageReport(runtime, { ...report, query: { ...report.query, userId: session.userId } });
  } catch (error) {
    return renderAdminError(error);
  }
};
