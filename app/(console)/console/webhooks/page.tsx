import { formatDateTime } from "@/app/_components/format";
import { Table, Td, Th, Truncate } from "@/app/_components/data-table";
import { Badge, Card, EmptyState, PageHeader } from "@/app/_components/ui";
import { requireAdmin } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { listWebhooks, recentDeliveries } from "@/lib/webhooks/webhook-service";
import { CreateWebhookForm, WebhookActions } from "./webhook-forms";

export const dynamic = "force-dynamic";

const STATUS_TONE = { delivered: "green", pending: "amber", failed: "red" } as const;

function When({ iso }: { iso: string }) {
  const text = formatDateTime(iso);
  return (
    <>
      <span className="whitespace-nowrap">{text.slice(0, 10)}</span> <span className="whitespace-nowrap text-zinc-500">{text.slice(11, 19)}</span>
    </>
  );
}

export default async function WebhooksPage() {
  await requireAdmin("/console/webhooks");
  const runtime = await getRuntime();
  const [webhooks, deliveries] = await Promise.all([listWebhooks(runtime.database), recentDeliveries(runtime.database, 50)]);
  const urlOf = new Map(webhooks.map((webhook) => [webhook.id, webhook.url]));
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Alerts as signed JSON posts: budgets crossing their thresholds or running out, channels and keys the gateway disabled or restored. Failed deliveries are retried for an hour."
      />
      <div className="space-y-6">
        {webhooks.length === 0 ? (
          <EmptyState title="No webhooks yet">Add one below to be told before a budget runs out or when a channel is taken out of rotation.</EmptyState>
        ) : (
          <Table>
            <thead>
              <tr>
                <Th>URL</Th>
                <Th>Events</Th>
                <Th>Deliveries</Th>
                <Th>Actions</Th>
              </tr>
            </thead>
            <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
              {webhooks.map((webhook) => (
                <tr key={webhook.id} data-testid="webhook-row">
                  <Td label="URL" wide className="font-medium">
                    <Truncate text={webhook.url} className="xl:max-w-[22rem]" />
                    {!webhook.enabled && (
                      <span className="ml-2">
                        <Badge tone="zinc">disabled</Badge>
                      </span>
                    )}
                  </Td>
                  <Td label="Events" wide>
                    <span className="flex flex-wrap gap-1">
                      {webhook.events.map((event) => (
                        <Badge key={event} tone="indigo">
                          {event}
                        </Badge>
                      ))}
                    </span>
                  </Td>
                  <Td label="Deliveries" className="whitespace-nowrap text-sm tabular-nums">
                    {webhook.deliveries.delivered} delivered
                    {webhook.deliveries.pending > 0 && <span className="text-amber-700 dark:text-amber-400"> · {webhook.deliveries.pending} retrying</span>}
                    {webhook.deliveries.failed > 0 && <span className="text-red-700 dark:text-red-400"> · {webhook.deliveries.failed} failed</span>}
                  </Td>
                  <Td label="Actions">
                    <WebhookActions webhook={webhook} />
                  </Td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}

        <section className="space-y-2">
          <h2 className="text-base font-semibold">Recent deliveries</h2>
          {deliveries.length === 0 ? (
            <p className="text-sm text-zinc-500">Nothing sent yet.</p>
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th>When (UTC)</Th>
                  <Th>Event</Th>
                  <Th>Status</Th>
                  <Th>To</Th>
                </tr>
              </thead>
              <tbody className="divide-y divide-zinc-200 bg-white dark:divide-zinc-800 dark:bg-zinc-900">
                {deliveries.map((delivery) => (
                  <tr key={`${delivery.webhookId}-${delivery.eventId}`} data-testid="delivery-row">
                    <Td label="When" className="text-xs">
                      <When iso={delivery.createdAt} />
                    </Td>
                    <Td label="Event" wide>
                      <code className="text-xs">{delivery.event}</code>
                      <div className="text-sm text-zinc-600 dark:text-zinc-300">{delivery.text}</div>
                    </Td>
                    <Td label="Status" className="text-sm">
                      <Badge tone={STATUS_TONE[delivery.status as keyof typeof STATUS_TONE] ?? "zinc"}>{delivery.status}</Badge>
                      <div className="text-xs text-zinc-500">
                        {delivery.attempts} {delivery.attempts === 1 ? "attempt" : "attempts"}
                        {delivery.lastError && delivery.status !== "delivered" ? ` · ${delivery.lastError}` : ""}
                      </div>
                    </Td>
                    <Td label="To" className="text-xs">
                      <Truncate text={urlOf.get(delivery.webhookId) ?? delivery.webhookId} className="xl:max-w-[16rem]" />
                    </Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </section>

        <Card className="max-w-2xl">
          <CreateWebhookForm />
        </Card>
      </div>
    </>
  );
}
