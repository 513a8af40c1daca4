import { diffChanges } from "@/lib/audit/audit-log";
import * as service from "@/lib/webhooks/webhook-service";
import { jsonResponse } from "@/lib/canonical/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin } from "./with-admin";

export const listWebhooks = withAdmin(async ({ runtime }) => jsonResponse(200, { data: await service.listWebhooks(runtime.database) }));

export const createWebhook = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.createWebhookSchema);
  const created = await service.createWebhook(runtime.database, runtime.secrets.encryptionKey, input);
  await runtime.invalidate("webhooks");
  await audit("webhook.create", { kind: "webhook", id: created.id, name: created.url }, diffChanges(null, created, { ...input, secret: created.secret }));
  return jsonResponse(201, created);
});

export const getWebhook = withAdmin(async ({ runtime, request }) => jsonResponse(200, await service.getWebhook(runtime.database, request.params.id ?? "")));

export const updateWebhook = withAdmin(async ({ runtime, request, audit }) => {
  const input = await parseAdminBody(request, service.updateWebhookSchema);
  const id = request.params.id ?? "";
  const before = await service.getWebhook(runtime.database, id);
  const updated = await service.updateWebhook(runtime.database, runtime.secrets.encryptionKey, id, input);
  await runtime.invalidate("webhooks");
  await audit("webhook.update", { kind: "webhook", id, name: updated.url }, diffChanges(before, updated, input));
  return jsonResponse(200, updated);
});

export const deleteWebhook = withAdmin(async ({ runtime, request, audit }) => {
  const id = request.params.id ?? "";
  const { recent: _recent, deliveries: _deliveries, ...before } = await service.getWebhook(runtime.database, id);
  await service.deleteWebhook(runtime.database, id);
  await runtime.invalidate("webhooks");
  await audit("webhook.delete", { kind: "webhook", id, name: before.url }, diffChanges(before, null));
  return jsonResponse(200, { id, deleted: true });
});

/** Sends a test event now and answers with that attempt's outcome. */
export const testWebhook = withAdmin(async ({ runtime, request }) => {
  const id = request.params.id ?? "";
  await service.requireWebhook(runtime.database, id);
  return jsonResponse(200, await runtime.webhooks.test(id));
});
