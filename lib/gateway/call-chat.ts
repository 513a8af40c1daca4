import { collectResponse, type ChatResponse } from "@/lib/canonical/collect-response";
import type { GatewayError } from "@/lib/canonical/gateway-error";
import { messageText, type ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent, StreamEventBatches } from "@/lib/canonical/stream-event";
import { env } from "@/lib/env";
import { jsonResponse, type ApiResponse } from "@/lib/http/api-types";
import type { CallContext, Provider, RelayRequest } from "@/lib/providers/provider";
import { providers } from "@/lib/providers/registry";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { estimatePromptTokens, runCall, type AttemptHooks } from "./call-pipeline";
import { primeStream } from "./prime-stream";
import type { GatewayContext } from "./with-api-key";

export interface ChatPlan {
  chat: ChatRequest;
  /** The raw client body, for upstreams that speak the client's own format. */
  relay?: RelayRequest;
  renderResponse(response: ChatResponse): unknown;
  renderStream(events: StreamEventBatches): AsyncIterable<string>;
  /** The in-stream error event once a stream has started (the format's own by default). */
  renderStreamError?(error: GatewayError): string;
}

/** Chat in any client format: a same-format relay where there is one, else the canonical path. */
export function callChat(context: GatewayContext, plan: ChatPlan): Promise<ApiResponse> {
  const { chat } = plan;
  const { log, format } = context;
  const promptText = () => [chat.system ?? "", ...chat.messages.map(messageText)].join("\n");
  log.promptText = promptText;
  return runCall(context, {
    operation: "chat",
    model: chat.model,
    stream: chat.stream,
    estimate: { inputTokens: estimatePromptTokens(promptText()), outputTokens: chat.maxTokens ?? env.QUOTA_DEFAULT_OUTPUT_TOKENS },
    supports: (provider) => provider.chat !== undefined || (plan.relay !== undefined && provider.relays?.[`${format.name}:chat`] !== undefined),
    renderStreamError: plan.renderStreamError ?? format.renderStreamError,
    async attempt(channel, call, hooks) {
      const provider = providers[channel.type];
      const relay = plan.relay && provider.relays?.[`${format.name}:chat`];
      if (relay) return relay(plan.relay!, call);
      return translatedChat(provider, chat, call, hooks, plan);
    },
  });
}

/** One attempt through the canonical path: the provider's chat, metered, rendered for the client. */
export async function translatedChat(
  provider: Provider,
  chat: ChatRequest,
  call: CallContext,
  hooks: AttemptHooks,
  render: Pick<ChatPlan, "renderResponse" | "renderStream">,
): Promise<ApiResponse> {
  // Waiting for the first event lets a dead or garbled stream fail over.
  const source = chat.maxTokens === 0 ? nothingGenerated(chat, call) : await provider.chat!(chat, call);
  const events = await primeStream(source, (batch) => batch[0]?.type === "error" && batch[0].error);
  // A non-streamed failure is the attempt's and fails over; only a started stream reports here.
  const metered = meterEvents(events, call.meter, chat.stream ? hooks.streamFailed : () => undefined);
  return chat.stream
    ? { status: 200, headers: { ...SSE_HEADERS }, body: render.renderStream(metered) }
    : jsonResponse(200, render.renderResponse(await collectResponse(metered)));
}

/**
 * Anthropic's `max_tokens: 0` only pre-warms Anthropic's prompt cache. Other upstreams
 * have no cache to warm (and refuse 0), so the reply it gets there, an empty one that
 * stopped at its token limit, comes from the gateway without an upstream call.
 */
async function* nothingGenerated(chat: ChatRequest, call: CallContext): AsyncGenerator<StreamEvent[]> {
  call.warnings.push("max_tokens 0 (prompt-cache pre-warming) answered by the gateway: this channel has no prompt cache to warm");
  yield [
    { type: "message-start", id: "", model: chat.model, created: Math.floor(Date.now() / 1000) },
    { type: "finish", reason: "length" },
    { type: "usage", usage: { promptTokens: 0, completionTokens: 0 } },
  ];
}

async function* meterEvents(batches: StreamEventBatches, meter: UsageMeter, onFailure: (error: unknown) => void): AsyncGenerator<StreamEvent[]> {
  try {
    for await (const batch of batches) {
      for (const event of batch) meterEvent(event, meter);
      yield batch;
    }
  } catch (error) {
    onFailure(error);
    throw error;
  }
}

function meterEvent(event: StreamEvent, meter: UsageMeter): void {
  switch (event.type) {
    case "text-delta":
    case "reasoning-delta":
      meter.recordOutput(event.text);
      break;
    case "tool-call-start":
      meter.recordOutput(event.name);
      break;
    case "tool-call-delta":
      meter.recordOutput(event.argumentsDelta);
      break;
    case "usage":
      meter.recordUsage(event.usage);
      break;
    case "error":
      meter.recordError(event.error);
      break;
  }
}
