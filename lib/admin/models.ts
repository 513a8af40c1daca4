import { jsonResponse } from "@/lib/canonical/api-types";
import { createModelSchema, updateModelSchema } from "@/lib/models/model-route";
import * as service from "@/lib/models/model-service";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

/** Every model some channel serves or a record names, with its channels, strategy and fallbacks. */
export const listModels = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listModels(runtime) }));

export const createModel = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, createModelSchema);
  return jsonResponse(201, await service.createModel(runtime, input));
});

export const getModel = withAdmin(async ({ runtime, request }) => jsonResponse(200, await service.getModel(runtime, request.params.id ?? "")));

export const updateModel = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, updateModelSchema);
  return jsonResponse(200, await service.updateModel(runtime, request.params.id ?? "", input));
});

export const deleteModel = withAdmin(async ({ runtime, request }) => {
  const id = request.params.id ?? "";
  await service.deleteModel(runtime, id);
  return jsonResponse(200, { id, deleted: true });
});
