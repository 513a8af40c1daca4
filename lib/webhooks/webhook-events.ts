// What a webhook can be told, and the JSON body each delivery carries (issue 34's contract).

export const WEBHOOK_EVENTS = ["budget.threshold", "budget.exhausted", "channel.disabled", "channel.restored", "channel.circuit_open", "key.disabled"] as const;

export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** The event `POST /api/admin/webhooks/{id}/test` sends: to that webhook only, whatever it subscribed to. */
export const TEST_EVENT = "webhook.test";

export interface WebhookSubject {
  kind: "token" | "user" | "team" | "end_user" | "channel";
  id: string;
  name: string;
}

/** An event as the gateway raises it; `id` and `at` are added when it is recorded. */
export interface WebhookEvent {
  event: WebhookEventName | typeof TEST_EVENT;
  /** One line for people: Slack and Teams incoming webhooks show it as is. */
  text: string;
  subject: WebhookSubject;
  window?: { window: string; unit: string; limit: number; used: number; resetsAt: string | null };
  /** The threshold crossed, as a fraction of the limit. */
  percent?: number;
  channel?: { id: string; name: string; reason: string };
}

/** The body of a delivery: the same bytes on every retry (its signature too). */
export function eventPayload(id: string, at: Date, event: WebhookEvent): string {
  return JSON.stringify({ id, event: event.event, at: at.toISOString(), ...withoutName(event) });
}

function withoutName({ event: _event, ...rest }: WebhookEvent): Omit<WebhookEvent, "event"> {
  return rest;
}
