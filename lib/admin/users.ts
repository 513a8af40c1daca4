import { deleteUserAccount, updateUserAccount, userUpdateSchema } from "@/lib/console/user-accounts";
import { listUsers as list } from "@/lib/console/user-limits";
import { jsonResponse } from "@/lib/http/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

export const listUsers = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await list(runtime) }));

/** PATCH /api/admin/users/{id}: role, standing, password and the limits of the user's own console sessions. */
export const updateUser = withAdmin(async ({ runtime, request, userId }) => {
  const input = await parseAdminBody(request, userUpdateSchema);
  return jsonResponse(200, await updateUserAccount(runtime, request.params.id ?? "", input, userId));
});

export const deleteUser = withAdmin(async ({ runtime, request, userId }) => {
  await deleteUserAccount(runtime, request.params.id ?? "", userId);
  return jsonResponse(200, { id: request.params.id, deleted: true });
});
