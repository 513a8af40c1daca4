import { jsonResponse } from "@/lib/canonical/api-types";
import * as service from "@/lib/tokens/token-service";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

const ALL = { kind: "all" } as const;

export const listTokens = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listTokens(runtime, ALL) }));

/** Creates a token; the response is the only time the key is shown. */
export const createToken = withAdmin(async ({ runtime, request, userId }) => {
  const input = await parseAdminBody(request, service.createTokenSchema);
  return jsonResponse(201, await service.createToken(runtime, input, userId));
});

/** A token with each limit window's use and reset time. */
export const getToken = withAdmin(async ({ runtime, request }) =>
  jsonResponse(200, await service.tokenWithWindows(runtime, await service.findToken(runtime, ALL, request.params.id ?? ""))),
);

export const updateToken = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, service.updateTokenSchema);
  return jsonResponse(200, await service.updateToken(runtime, ALL, request.params.id ?? "", input));
});

export const deleteToken = withAdmin(async ({ runtime, request }) => {
  const id = request.params.id ?? "";
  await service.deleteToken(runtime, ALL, id);
  return jsonResponse(200, { id, deleted: true });
});
