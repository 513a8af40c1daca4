import { collectResponse, type ChatResponse } from "@/lib/canonical/collect-response";
import { safeJson } from "@/lib/canonical/json";
import type { StreamEvent, StreamEventBatches } from "@/lib/canonical/stream-event";
import { decodeSseBatches, type SseMessage } from "@/lib/sse/decode-sse";
import type { ClientFormatName } from "./operation";
import { anthropicResponseEvents, parseAnthropicStream } from "./anthropic/parse-stream";
import { geminiResponseEvents, parseGeminiStream } from "./gemini/parse-stream";
import { openAIResponseEvents, parseOpenAIStream } from "./openai/parse-stream";

// A same-format relay answers in the client format's own wire bytes, which are also the
// vendor's: each vendor's canonical parser reads them back, for the response cache to keep
// them in canonical form. An answer holding more than one canonical response can carry
// (several choices or candidates, log probabilities) reads as undefined: not kept.

interface RelayedAnswerReader {
  whole(json: unknown): Iterable<StreamEvent>;
  stream(messages: AsyncIterable<SseMessage[]>): StreamEventBatches;
  /** Whether one JSON answer or stream chunk fits the canonical response whole. */
  fits(json: unknown): boolean;
}

type Record_ = Record<string, unknown>;
const isRecord = (value: unknown): value is Record_ => typeof value === "object" && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const READERS: Record<ClientFormatName, RelayedAnswerReader> = {
  openai: {
    whole: openAIResponseEvents,
    stream: parseOpenAIStream,
    fits: (json) => !isRecord(json) || list(json.choices).every((choice) => isRecord(choice) && (choice.index ?? 0) === 0 && (choice.logprobs ?? null) === null),
  },
  anthropic: { whole: anthropicResponseEvents, stream: parseAnthropicStream, fits: () => true },
  gemini: {
    whole: geminiResponseEvents,
    stream: parseGeminiStream,
    fits: (json) => !isRecord(json) || list(json.candidates).every((candidate) => isRecord(candidate) && (candidate.index ?? 0) === 0),
  },
};

/** A relayed chat answer (a whole JSON body, or a stream's bytes) as a canonical response, or undefined when it is not one. */
export async function readRelayedAnswer(format: ClientFormatName, body: Buffer, contentType: string, stream: boolean): Promise<ChatResponse | undefined> {
  const reader = READERS[format];
  const text = body.toString("utf8");
  try {
    if (!stream) {
      const json = safeJson(text);
      return reader.fits(json) ? await collectResponse(once([...reader.whole(json)])) : undefined;
    }
    const messages: SseMessage[] = [];
    if (contentType.includes("event-stream")) {
      for await (const batch of decodeSseBatches(once(text))) messages.push(...batch);
    } else {
      // Gemini's streamGenerateContent without alt=sse: one JSON array of chunks.
      for (const chunk of list(safeJson(text))) messages.push({ data: JSON.stringify(chunk), event: undefined, id: undefined });
    }
    if (!messages.every((message) => message.data === "[DONE]" || reader.fits(safeJson(message.data)))) return undefined;
    return await collectResponse(reader.stream(once(messages)));
  } catch {
    // Unreadable, failed or cut short: nothing to keep.
    return undefined;
  }
}

async function* once<T>(value: T): AsyncGenerator<T> {
  yield value;
}
