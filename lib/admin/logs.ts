import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { jsonResponse } from "@/lib/canonical/api-types";
import { withAdmin } from "./with-admin";

const querySchema = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

/** GET /api/admin/logs?limit=N: newest first. */
export const listLogs = withAdmin(async ({ runtime, request }) => {
  const query = querySchema.safeParse(Object.fromEntries(request.url.searchParams));
  if (!query.success) throw new GatewayError("invalid_request", "limit must be an integer from 1 to 1000.", { param: "limit" });
  // Rows still queued in this process are written first, so the answer is current.
  await runtime.logs.flush();
  const rows = await runtime.database.requestLog.findMany({ orderBy: { createdAt: "desc" }, take: query.data.limit });
  return jsonResponse(200, {
    data: rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
  });
});
