import { listAudit as readAudit } from "@/lib/audit/audit-log";
import { jsonResponse } from "@/lib/canonical/api-types";
import { withAdmin } from "./with-admin";

/** GET /api/admin/audit?cursor=&limit=&actor=&target=kind:id&action=: newest first, a page at a time. */
export const listAudit = withAdmin(async ({ runtime, request }) => {
  const params = request.url.searchParams;
  const limit = params.get("limit");
  return jsonResponse(
    200,
    await readAudit(runtime.database, {
      cursor: params.get("cursor"),
      limit: limit === null || limit === "" ? undefined : Number(limit),
      actor: params.get("actor"),
      target: params.get("target"),
      action: params.get("action"),
    }),
  );
});
