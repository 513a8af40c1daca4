import { z } from "zod";
import type { Database } from "@/lib/db/client";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { encryptSecret } from "@/lib/crypto/encryption";
import { randomBase62 } from "@/lib/crypto/random-key";
import { checkUrl } from "@/lib/net/fetch-public-url";
import { WEBHOOK_EVENTS } from "./webhook-events";

// Webhooks as the admin API and the console see them. The secret is shown once, in the
// answer that created (or rotated) it; after that an answer says only whether there is one.

const events = z.array(z.enum(WEBHOOK_EVENTS)).min(1, "Name at least one event.");
const secret = z.string().min(16, "A secret has at least 16 characters.").max(256);

export const createWebhookSchema = z.strictObject({
  url: z.string().max(2000),
  events,
  secret: secret.optional(),
  enabled: z.boolean().optional(),
});

export const updateWebhookSchema = z.strictObject({
  url: z.string().max(2000).optional(),
  events: events.optional(),
  secret: secret.optional(),
  enabled: z.boolean().optional(),
});

interface Row {
  id: string;
  url: string;
  events: unknown;
  secretEncrypted: string | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const RECENT = 20;

/** Webhook URLs follow the image-fetch rule: public http(s) unless FETCH_ALLOWED_HOSTS names the host. */
function checkedUrl(raw: string): string {
  return checkUrl(raw, "url").toString();
}

function view(row: Row, counts: Record<string, number> = {}) {
  return {
    id: row.id,
    url: row.url,
    events: row.events as string[],
    enabled: row.enabled,
    hasSecret: row.secretEncrypted !== null,
    deliveries: { pending: counts.pending ?? 0, delivered: counts.delivered ?? 0, failed: counts.failed ?? 0 },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function countsByWebhook(database: Database, ids: string[]): Promise<Map<string, Record<string, number>>> {
  const groups = await database.webhookDelivery.groupBy({ by: ["webhookId", "status"], where: { webhookId: { in: ids } }, _count: { _all: true } });
  const counts = new Map<string, Record<string, number>>();
  for (const group of groups) {
    const entry = counts.get(group.webhookId) ?? {};
    entry[group.status] = group._count._all;
    counts.set(group.webhookId, entry);
  }
  return counts;
}

export async function listWebhooks(database: Database) {
  const rows = await database.webhook.findMany({ orderBy: { createdAt: "asc" } });
  const counts = await countsByWebhook(
    database,
    rows.map((row) => row.id),
  );
  return rows.map((row) => view(row, counts.get(row.id)));
}

async function findRow(database: Database, id: string): Promise<Row> {
  const row = await database.webhook.findUnique({ where: { id } });
  if (!row) throw new GatewayError("not_found", "No webhook with that id.", { code: "webhook_not_found" });
  return row;
}

type DeliveryRow = Awaited<ReturnType<Database["webhookDelivery"]["findMany"]>>[number];

function deliveryView(delivery: DeliveryRow) {
  const payload = JSON.parse(delivery.payload) as { subject?: { kind: string; id: string; name: string }; text?: string };
  return {
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
    event: delivery.event,
    subject: payload.subject ?? null,
    text: payload.text ?? "",
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: delivery.status === "pending" ? delivery.nextAttemptAt.toISOString() : null,
  };
}

/** A webhook with its most recent deliveries (newest first). */
export async function getWebhook(database: Database, id: string) {
  const row = await findRow(database, id);
  const [counts, recent] = await Promise.all([
    countsByWebhook(database, [id]),
    database.webhookDelivery.findMany({ where: { webhookId: id }, orderBy: { createdAt: "desc" }, take: RECENT }),
  ]);
  return { ...view(row, counts.get(id)), recent: recent.map(deliveryView) };
}

/** The newest deliveries of every webhook, for the console. */
export async function recentDeliveries(database: Database, take: number) {
  const rows = await database.webhookDelivery.findMany({ orderBy: { createdAt: "desc" }, take });
  return rows.map(deliveryView);
}

export async function createWebhook(database: Database, encryptionKey: Buffer, input: z.infer<typeof createWebhookSchema>) {
  const url = checkedUrl(input.url);
  const plain = input.secret ?? `whsec_${randomBase62(32)}`;
  const row = await database.webhook.create({
    data: { url, events: [...new Set(input.events)], secretEncrypted: encryptSecret(plain, encryptionKey), enabled: input.enabled ?? true },
  });
  return { ...view(row), secret: plain };
}

export async function updateWebhook(database: Database, encryptionKey: Buffer, id: string, input: z.infer<typeof updateWebhookSchema>) {
  await findRow(database, id);
  const row = await database.webhook.update({
    where: { id },
    data: {
      ...(input.url === undefined ? {} : { url: checkedUrl(input.url) }),
      ...(input.events === undefined ? {} : { events: [...new Set(input.events)] }),
      ...(input.secret === undefined ? {} : { secretEncrypted: encryptSecret(input.secret, encryptionKey) }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    },
  });
  return view(row, (await countsByWebhook(database, [id])).get(id));
}

export async function deleteWebhook(database: Database, id: string): Promise<void> {
  await findRow(database, id);
  await database.$transaction([database.webhookDelivery.deleteMany({ where: { webhookId: id } }), database.webhook.delete({ where: { id } })]);
}

export async function requireWebhook(database: Database, id: string): Promise<void> {
  await findRow(database, id);
}
