import { diffChanges } from "@/lib/audit/audit-log";
import { jsonResponse } from "@/lib/canonical/api-types";
import * as service from "@/lib/tokens/token-service";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

const ALL = { kind: "all" } as const;

export const listTokens = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listTokens(runtime, ALL) }));

/** Creates a token; the response is the only time the key is shown. */
export const createToken = withAdmin(async ({ runtime, request, userId, audit }) => {
  const input = await parseAdminBody(request, service.createTokenSchema);
  const created = await service.createToken(runtime, input, userId);
  await audit("token.create", { kind: "token", id: created.id, name: created.name }, diffChanges(null, created, input));
  return jsonResponse(201, created);
});

/** A token with each limit window's use and reset time. */
export const getToken = withAdmin(async ({ runtime, request }) =>
  jsonResponse(200, await service.tokenWithWindows(runtime, await service.findToken(runtime, ALL, request.params.id ?? ""))),
);

export const updateToken = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.updateTokenSchema);
  const id = request.params.id ?? "";
  const before = service.tokenJson(await service.findToken(runtime, ALL, id));
  const updated = await service.updateToken(runtime, ALL, id, input);
  await audit("token.update", { kind: "token", id, name: updated.name }, diffChanges(before, updated, input));
  return jsonResponse(200, updated);
});

export const deleteToken = withAdmin(async ({ runtime, request, audit }) => {
  const id = request.params.id ?? "";
  const before = service.tokenJson(await service.findToken(runtime, ALL, id));
  await service.deleteToken(runtime, ALL, id);
  await audit("token.delete", { kind: "token", id, name: before.name }, diffChanges(before, null));
  return jsonResponse(200, { id, deleted: true });
});
