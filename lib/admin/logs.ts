import { GatewayError } from "@/lib/canonical/gateway-error";
import { jsonResponse } from "@/lib/canonical/api-types";
import { parseLogQuery, queryLogPage } from "@/lib/console/log-query";
import { withAdmin } from "./with-admin";

const DEFAULT_LIMIT = 100;

/**
 * GET /api/admin/logs?limit=&cursor=&from=&to=&token=&user=&model=&channel=&status=&session=&end_user=:
 * newest first, a page at a time; `next_cursor` (null on the last page) asks for the next one.
 */
export const listLogs = withAdmin(async ({ runtime, request }) => {
  const parsed = parseLogQuery(request.url.searchParams);
  if (!parsed.ok) throw new GatewayError("invalid_request", parsed.message, { param: parsed.param });
  const { filter, cursor, limit = DEFAULT_LIMIT } = parsed.query;
  const page = await queryLogPage(runtime, filter, cursor, limit);
  return jsonResponse(200, {
    data: page.rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
    next_cursor: page.older,
  });
});
