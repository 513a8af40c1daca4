import { diffChanges } from "@/lib/audit/audit-log";
import { jsonResponse } from "@/lib/canonical/api-types";
import { createModelSchema, updateModelSchema } from "@/lib/models/model-route";
import * as service from "@/lib/models/model-service";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

/** Every model some channel serves or a record names, with its channels, strategy and fallbacks. */
export const listModels = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listModels(runtime) }));

export const createModel = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, createModelSchema);
  const created = await service.createModel(runtime, input);
  await audit("model.create", { kind: "model", id: created.id ?? created.name, name: created.name }, diffChanges(null, created, input));
  return jsonResponse(201, created);
});

export const getModel = withAdmin(async ({ runtime, request }) => jsonResponse(200, await service.getModel(runtime, request.params.id ?? "")));

export const updateModel = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, updateModelSchema);
  const id = request.params.id ?? "";
  const before = await service.getModel(runtime, id);
  const updated = await service.updateModel(runtime, id, input);
  await audit("model.update", { kind: "model", id, name: updated.name }, diffChanges(before, updated, input));
  return jsonResponse(200, updated);
});

export const deleteModel = withAdmin(async ({ runtime, request, audit }) => {
  const id = request.params.id ?? "";
  const before = await service.getModel(runtime, id);
  await service.deleteModel(runtime, id);
  await audit("model.delete", { kind: "model", id, name: before.name }, diffChanges(before, null));
  return jsonResponse(200, { id, deleted: true });
});
