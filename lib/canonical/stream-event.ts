import type { FinishReason } from "@/lib/canonical/finish-reason";
import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { Usage } from "@/lib/canonical/usage";

// What a provider yields while generating. Non-streaming calls yield the same events
// and the client format aggregates them (lib/canonical/collect-response.ts).
export type StreamEvent =
  | { type: "message-start"; id: string; model: string; created: number }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string; signature?: string }
  | { type: "tool-call-start"; index: number; id: string; name: string }
  | { type: "tool-call-delta"; index: number; argumentsDelta: string }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; reason: FinishReason; stopSequence?: string }
  | { type: "error"; error: GatewayError };
