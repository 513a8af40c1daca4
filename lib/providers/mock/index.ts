import { setTimeout as sleep } from "node:timers/promises";
import { abortSignalOf } from "@/lib/canonical/abort-source";
import type { FinishReason } from "@/lib/canonical/finish-reason";
import { messageText, type ChatRequest } from "@/lib/canonical/request";
import { oneEventPerBatch, type StreamEvent } from "@/lib/canonical/stream-event";
import { env } from "@/lib/env";
import { chatMember, estimatedTokenCountMember, translatedCompactionMember, translatedResponsesMember } from "@/lib/providers/members/chat-members";
import type { AttemptContext, Provider } from "@/lib/providers/provider";
import { countTokens } from "@/lib/usage/count-tokens";
import { mockReplyText, splitWords } from "./generate-reply";

async function* generate(request: ChatRequest, context: AttemptContext): AsyncGenerator<StreamEvent> {
  const id = `chatcmpl-mock${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
  yield { type: "message-start", id, model: context.upstreamModel, created: Math.floor(Date.now() / 1000) };
  const promptText = [request.system ?? "", ...request.messages.map(messageText)].join("\n");
  const promptTokens = await countTokens(promptText);

  const forcedTool =
    request.tools?.length && request.toolChoice && (request.toolChoice.type === "required" || request.toolChoice.type === "tool")
      ? request.toolChoice.type === "tool"
        ? request.toolChoice.name
        : request.tools[0]!.name
      : undefined;
  if (forcedTool) {
    const argumentsText = "{}";
    yield { type: "tool-call-start", index: 0, id: `call_mock${id.slice(-12)}`, name: forcedTool };
    yield { type: "tool-call-delta", index: 0, argumentsDelta: argumentsText };
    yield { type: "finish", reason: "tool-calls" };
    yield { type: "usage", usage: { promptTokens, completionTokens: await countTokens(forcedTool + argumentsText) } };
    return;
  }

  let words = splitWords(mockReplyText(request));
  let reason: FinishReason = "stop";
  let stopSequence: string | undefined;
  const full = words.join("");
  const stopAt = (request.stop ?? [])
    .map((sequence) => ({ sequence, index: sequence ? full.indexOf(sequence) : -1 }))
    .filter((match) => match.index >= 0)
    .sort((a, b) => a.index - b.index)[0];
  if (stopAt) {
    words = splitWords(full.slice(0, stopAt.index));
    reason = "stop-sequence";
    stopSequence = stopAt.sequence;
  }
  // One word is one token for the mock's own max_tokens accounting.
  if (request.maxTokens !== undefined && words.length > request.maxTokens) {
    words = words.slice(0, request.maxTokens);
    reason = "length";
  }
  const delay = request.stream ? env.MOCK_STREAM_DELAY_MS : 0;
  for (const word of words) {
    if (delay > 0) await sleep(delay, undefined, { signal: abortSignalOf(context.signal) });
    yield { type: "text-delta", text: word };
  }
  yield { type: "finish", reason, stopSequence };
  yield { type: "usage", usage: { promptTokens, completionTokens: await countTokens(words.join("")) } };
}

async function mockChat(request: ChatRequest, context: AttemptContext) {
  return oneEventPerBatch(generate(request, context));
}

/** A deterministic built-in model for demos and offline use; it calls nothing. */
export const mockProvider: Provider = {
  defaultBaseUrl: "",
  requiresApiKey: false,
  ownedBy: "gateway-mock",
  transport: () => ({
    url: (endpoint) => endpoint.path,
    authorize: () => undefined,
  }),
  operations: {
    chat: chatMember(mockChat),
    responses: translatedResponsesMember(mockChat),
    compact: translatedCompactionMember(mockChat),
    "count-tokens": estimatedTokenCountMember,
  },
  probe: mockChat,
};
