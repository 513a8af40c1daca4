import { deleteUserAccount, updateUserAccount, userUpdateSchema } from "@/lib/console/user-accounts";
import { diffChanges } from "@/lib/audit/audit-log";
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
export const createUser = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, newUserSchema);
  const created = await createAccount(runtime, input);
  if (!created.ok) throw new GatewayError("invalid_request", created.error, { code: "invalid_user" });
  const user = (await list(runtime)).find((entry) => entry.id === created.id)!;
  await audit("user.create", { kind: "user", id: user.id, name: user.email }, diffChanges(null, user, input));
  return jsonResponse(201, user);
});

/** PATCH /api/admin/users/{id}: role, standing, password and the limits of the user's own console sessions. */
export const updateUser = withAdmin(async ({ runtime, request, userId, audit }) => {
  const input = await parseAdminBody(request, userUpdateSchema);
  const id = request.params.id ?? "";
  const before = await userWithWindows(runtime, id);
  const updated = await updateUserAccount(runtime, id, input, userId);
  await audit("user.update", { kind: "user", id, name: before.email }, diffChanges(before, updated, input));
  return jsonResponse(200, updated);
});

export const deleteUser = withAdmin(async ({ runtime, request, userId, audit }) => {
  const id = request.params.id ?? "";
  const before = await userWithWindows(runtime, id);
  await deleteUserAccount(runtime, id, userId);
  const { windows: _windows, ...account } = before;
  await audit("user.delete", { kind: "user", id, name: before.email }, diffChanges(account, null));
  return jsonResponse(200, { id, deleted: true });
});
