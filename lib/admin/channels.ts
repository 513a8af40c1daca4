import * as service from "@/lib/channels/channel-service";
import { jsonResponse } from "@/lib/canonical/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

export const listChannels = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listChannels(runtime) }));

export const createChannel = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, service.createChannelSchema);
  return jsonResponse(201, await service.createChannel(runtime, input));
});

export const getChannel = withAdmin(async ({ runtime, request }) => jsonResponse(200, await service.getChannel(runtime, request.params.id ?? "")));

export const updateChannel = withAdmin(async ({ runtime, request }) => {
  const input = await parseAdminBody(request, service.updateChannelSchema);
  return jsonResponse(200, await service.updateChannel(runtime, request.params.id ?? "", input));
});

export const deleteChannel = withAdmin(async ({ runtime, request }) => {
  const id = request.params.id ?? "";
  await service.deleteChannel(runtime, id);
  return jsonResponse(200, { id, deleted: true });
});
