import { listUsers as list, updateUserLimits, userLimitsSchema } from "@/lib/console/user-limits";
import { jsonResponse } from "@/lib/http/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

export const listUsers = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await list(runtime) }));

/** PATCH /api/admin/users/{id}: the limits of the user's own console sessions. */
export const updateUser = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, userLimitsSchema);
  return jsonResponse(200, await updateUserLimits(runtime, request.params.id ?? "", input));
});
