import * as service from "@/lib/channels/channel-service";
import { diffChanges } from "@/lib/audit/audit-log";
import { jsonResponse } from "@/lib/canonical/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

export const listChannels = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listChannels(runtime) }));

export const createChannel = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.createChannelSchema);
  const created = await service.createChannel(runtime, input);
  await audit("channel.create", { kind: "channel", id: created.id, name: created.name }, diffChanges(null, created, input));
  return jsonResponse(201, created);
});

export const getChannel = withAdmin(async ({ runtime, request }) => jsonResponse(200, await service.getChannel(runtime, request.params.id ?? "")));

export const updateChannel = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.updateChannelSchema);
  const id = request.params.id ?? "";
  const before = await service.getChannel(runtime, id);
  const updated = await service.updateChannel(runtime, id, input);
  await audit("channel.update", { kind: "channel", id, name: updated.name }, diffChanges(before, updated, input));
  return jsonResponse(200, updated);
});

export const deleteChannel = withAdmin(async ({ runtime, request, audit }) => {
  const id = request.params.id ?? "";
  const before = await service.getChannel(runtime, id);
  await service.deleteChannel(runtime, id);
  await audit("channel.delete", { kind: "channel", id, name: before.name }, diffChanges(before, null));
  return jsonResponse(200, { id, deleted: true });
});
