import { shareCarriedForm } from "./carried-strings";
import type { ChatRequest } from "./request";

// A canonical chat whose conversation is converted only when something reads it: a large
// request relayed to an upstream of its own format never is (the relay forwards the
// client's bytes), one that is translated, cached or counted is, once.

/** Every field of ChatRequest: a field added there must be added here (the compiler says so). */
const CHAT_FIELDS = {
  model: true,
  system: true,
  messages: true,
  stream: true,
  maxTokens: true,
  temperature: true,
  topP: true,
  topK: true,
  stop: true,
  tools: true,
  hostedTools: true,
  toolChoice: true,
  parallelToolCalls: true,
  reasoning: true,
  responseFormat: true,
  user: true,
} satisfies Record<keyof ChatRequest, true>;

/** The chat with `known` fields as given and every other one read from `whole()` on first use. */
export function deferredChat(known: Pick<ChatRequest, "model" | "stream"> & Partial<ChatRequest>, whole: () => ChatRequest): ChatRequest {
  const chat = {} as ChatRequest;
  for (const field of Object.keys(CHAT_FIELDS) as (keyof ChatRequest)[]) {
    if (field in known) Object.defineProperty(chat, field, { value: known[field], enumerable: true, writable: true, configurable: true });
    else Object.defineProperty(chat, field, { get: () => whole()[field], enumerable: true, configurable: true });
  }
  return chat;
}

/** The chat for another model, its deferred fields still deferred. */
export function chatForModel(chat: ChatRequest, model: string): ChatRequest {
  return chatWith(chat, { model });
}

/** The chat with `changes` made, its deferred fields still deferred (a spread would convert them) and its carried form still offered. */
export function chatWith(chat: ChatRequest, changes: Partial<ChatRequest>): ChatRequest {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(chat)) as ChatRequest;
  for (const [field, value] of Object.entries(changes)) Object.defineProperty(copy, field, { value, enumerable: true, writable: true, configurable: true });
  shareCarriedForm(chat, copy);
  return copy;
}
