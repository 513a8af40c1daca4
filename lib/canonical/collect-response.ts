import type { FinishReason } from "@/lib/canonical/finish-reason";
import type { StreamEvent, StreamEventBatches } from "@/lib/canonical/stream-event";
import type { Usage } from "@/lib/canonical/usage";

export interface ChatResponse {
  id: string;
  model: string;
  created: number;
  text: string;
  reasoning: string;
  reasoningSignature?: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  /** Searches the upstream's own service ran (a hosted web search), in order. */
  webSearches: Extract<StreamEvent, { type: "web-search" }>[];
  citations: Extract<StreamEvent, { type: "citation" }>[];
  finishReason: FinishReason;
  /** The upstream never said why it stopped (no finish event: a null finish_reason, a cut answer); `finishReason` is then a guess. */
  finishMissing?: true;
  stopSequence?: string;
  usage?: Usage;
}

/** Folds a complete event sequence into one response; rethrows an in-stream error. */
export async function collectResponse(batches: StreamEventBatches): Promise<ChatResponse> {
  const response: ChatResponse = {
    id: "",
    model: "",
    created: Math.floor(Date.now() / 1000),
    text: "",
    reasoning: "",
    toolCalls: [],
    webSearches: [],
    citations: [],
    finishReason: "stop",
  };
  let finished = false;
  for await (const batch of batches)
    for (const event of batch) {
      switch (event.type) {
        case "message-start":
          response.id = event.id;
          response.model = event.model;
          response.created = event.created;
          break;
        case "text-delta":
          response.text += event.text;
          break;
        case "reasoning-delta":
          response.reasoning += event.text;
          if (event.signature) response.reasoningSignature = event.signature;
          break;
        case "tool-call-start":
          response.toolCalls[event.index] = { id: event.id, name: event.name, arguments: "" };
          break;
        case "tool-call-delta": {
          const call = response.toolCalls[event.index];
          if (call) call.arguments += event.argumentsDelta;
          break;
        }
        case "web-search":
          response.webSearches.push(event);
          break;
        case "citation":
          response.citations.push(event);
          break;
        case "usage":
          response.usage = event.usage;
          break;
        case "finish":
          finished = true;
          response.finishReason = event.reason;
          response.stopSequence = event.stopSequence;
          break;
        case "error":
          throw event.error;
      }
    }
  response.toolCalls = response.toolCalls.filter(Boolean);
  if (!finished) response.finishMissing = true;
  return response;
}
