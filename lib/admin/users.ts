import { deleteUserAccount, updateUserAccount, userUpdateSchema } from "@/lib/console/user-accounts";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { listUsers as list, userWithWindows } from "@/lib/console/user-limits";
import { createUser as createAccount, newUserSchema } from "@/lib/console/users";
import { jsonResponse } from "@/lib/canonical/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

export const listUsers = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await list(runtime) }));

/** GET /api/admin/users/{id}: the account with each limit window's use and reset time. */
export const getUser = withAdmin(async ({ runtime, request }) => jsonResponse(200, await userWithWindows(runtime, request.params.id ?? "")));

/** POST /api/admin/users: an account with a password; new non-admins get the default console limits. */
export const createUser = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, newUserSchema);
  const created = await createAccount(runtime, input);
  if (!created.ok) throw new GatewayError("invalid_request", created.error, { code: "invalid_user" });
  return jsonResponse(
    201,
    (await list(runtime)).find((user) => user.id === created.id),
  );
});

/** PATCH /api/admin/users/{id}: role, standing, password and the limits of the user's own console sessions. */
export const updateUser = withAdmin(async ({ runtime, request, userId }) => {
  const input = await parseAdminBody(request, userUpdateSchema);
  return jsonResponse(200, await updateUserAccount(runtime, request.params.id ?? "", input, userId));
});

export const deleteUser = withAdmin(async ({ runtime, request, userId }) => {
  await deleteUserAccount(runtime, request.params.id ?? "", userId);
  return jsonResponse(200, { id: request.params.id, deleted: true });
});
