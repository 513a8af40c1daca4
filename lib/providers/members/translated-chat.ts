import { collectResponse } from "@/lib/canonical/collect-response";
import { primeStream } from "@/lib/canonical/prime-stream";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent, StreamEventBatches } from "@/lib/canonical/stream-event";
import { jsonResponse, type ApiResponse } from "@/lib/canonical/api-types";
import type { AttemptHooks, AttemptContext, ChatRender } from "@/lib/providers/provider";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";

/** A provider's canonical chat: a canonical request in, canonical events out. */
export type CanonicalChat = (request: ChatRequest, context: AttemptContext) => Promise<StreamEventBatches>;

/** One attempt through the canonical path: the provider's chat, metered, rendered for the client. */
export async function translatedChat(chat: CanonicalChat, request: ChatRequest, context: AttemptContext, hooks: AttemptHooks, render: ChatRender): Promise<ApiResponse> {
  // Waiting for the first event lets a dead or garbled stream fail over.
  const source = request.maxTokens === 0 ? nothingGenerated(request, context) : await chat(request, context);
  const events = await primeStream(source, (batch) => batch[0]?.type === "error" && batch[0].error);
  // A non-streamed failure is the attempt's and fails over; only a started stream reports here.
  const metered = meterEvents(events, context.meter, request.stream ? hooks.streamFailed : () => undefined);
  return request.stream
    ? { status: 200, headers: { ...SSE_HEADERS }, body: render.renderStream(metered) }
    : jsonResponse(200, render.renderResponse(await collectResponse(metered)));
}

/**
 * Anthropic's `max_tokens: 0` only pre-warms Anthropic's prompt cache. Other upstreams
 * have no cache to warm (and refuse 0), so the reply it gets there, an empty one that
 * stopped at its token limit, comes from the gateway without an upstream call.
 */
async function* nothingGenerated(request: ChatRequest, context: AttemptContext): AsyncGenerator<StreamEvent[]> {
  context.warnings.push("max_tokens 0 (prompt-cache pre-warming) answered by the gateway: this channel has no prompt cache to warm");
  yield [
    { type: "message-start", id: "", model: request.model, created: Math.floor(Date.now() / 1000) },
    { type: "finish", reason: "length" },
    { type: "usage", usage: { promptTokens: 0, completionTokens: 0 } },
  ];
}

/** Each batch's events given to the meter as they pass (one promise per batch, no generator). */
function meterEvents(batches: StreamEventBatches, meter: UsageMeter, onFailure: (error: unknown) => void): StreamEventBatches {
  return {
    [Symbol.asyncIterator]() {
      const iterator = batches[Symbol.asyncIterator]();
      const failed = (error: unknown): never => {
        onFailure(error);
        throw error;
      };
      const metered = (result: IteratorResult<StreamEvent[]>) => {
        try {
          if (!result.done) for (const event of result.value) meterEvent(event, meter);
        } catch (error) {
          // The events are not read further: the upstream is let go.
          void Promise.resolve(iterator.return?.()).catch(() => undefined);
          failed(error);
        }
        return result;
      };
      return {
        next: () => iterator.next().then(metered, failed),
        return: (value?: unknown) => (iterator.return ? iterator.return(value) : Promise.resolve({ done: true, value: undefined })),
      };
    },
  };
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
