import { GatewayError } from "@/lib/canonical/gateway-error";
import { messageText } from "@/lib/canonical/request";
import { env } from "@/lib/env";
import { openAIFormat } from "@/lib/formats/openai";
import { parseResponsesBody, parseResponsesDeferred, toCanonical, type ParsedResponsesRequest } from "@/lib/formats/responses/parse-request";
import {
  compactionRequest,
  keptUserMessages,
  openSealedCompactions,
  renderTriggeredCompaction,
  renderTriggeredCompactionStream,
  takeCompactionTrigger,
} from "@/lib/formats/responses/compaction";
import { newEnvelope, renderResponse } from "@/lib/formats/responses/render-response";
import { renderResponsesStream } from "@/lib/formats/responses/render-stream";
import { renderResponsesStreamError } from "@/lib/formats/responses/render-stream-error";
import type { ResponsesRequest } from "@/lib/formats/responses/schema";
import { estimateTokensOfLength, runCall } from "@/lib/gateway/call-pipeline";
import { compactionSeals } from "@/lib/gateway/compaction-seals";
import { DEFER_CONVERSATION_ABOVE_BYTES, readJsonRequest } from "@/lib/gateway/read-json-body";
import { withApiKey, type GatewayContext } from "@/lib/gateway/with-api-key";
import { jsonResponse } from "@/lib/canonical/api-types";
import { logger } from "@/lib/logger";
import { ownerOf, type StoredResponseRecord } from "@/lib/responses/response-store";
import { requestSession } from "@/lib/routing/session-affinity";

const notFound = (id: string, param?: string) =>
  new GatewayError("not_found", `Response with id '${id}' not found.`, { param: param ?? null, code: param ? "previous_response_not_found" : "response_not_found" });

type ResponseObject = Record<string, unknown> & { id?: string; output?: unknown[] };

/** Output items as the input items that replay them in a later turn (reasoning is not replayed). */
function asInputItems(output: unknown[] | undefined): unknown[] {
  return (output ?? []).filter((item) => (item as { type?: string }).type !== "reasoning");
}

function inputItems(body: ResponsesRequest): unknown[] {
  return typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? []);
}

/** What a continuation carries: the turn's input and output, or after a compaction only the user messages kept and the compaction item. */
function conversationAfter(body: ResponsesRequest, response: ResponseObject, compacted: boolean): unknown[] {
  const before = compacted ? keptUserMessages(body.input) : inputItems(body);
  return [...before, ...asInputItems(response.output)];
}

/**
 * POST /v1/responses: relayed to upstreams that serve it, translated through the
 * canonical model for every other (chat-only OpenAI-compatible servers, Anthropic,
 * Gemini). Unless `store: false`, the answer is kept for `previous_response_id`: a
 * continuation of a relayed answer goes back to its channel; one of a translated answer
 * carries the conversation so far to any channel.
 */
export const handleResponses = withApiKey(openAIFormat, "/v1/responses", async (context) => {
  const json = await readJsonRequest(context.request);
  // An agent's turn is relayed without parsing its input; a small request is validated whole.
  const deferred = json.bytes.length > DEFER_CONVERSATION_ABOVE_BYTES ? parseResponsesDeferred(json) : undefined;
  const requested = deferred?.body ?? parseResponsesBody(json.value());
  const owner = ownerOf(context.token.subject);
  const previous = requested.previous_response_id ? await context.runtime.responses.find(owner, requested.previous_response_id) : null;
  if (requested.previous_response_id && !previous) throw notFound(requested.previous_response_id, "previous_response_id");
  // A translated predecessor travels as history; a relayed one stays with its upstream.
  const merged: ResponsesRequest =
    previous && !previous.native
      ? { ...requested, input: [...(previous.conversation ?? []), ...inputItems(requested)] as ResponsesRequest["input"], previous_response_id: undefined }
      : requested;
  // The client's input as it came, unparsed: parseResponsesDeferred found in its bytes none of what is read next.
  const unread = deferred !== undefined && merged === requested;
  // The gateway's own compaction items become their summaries, for any upstream (OpenAI cannot read them either).
  const seals = compactionSeals(context);
  const opened = unread ? undefined : openSealedCompactions(merged.input, seals.open);
  const body: ResponsesRequest = opened ? { ...merged, input: opened } : merged;
  // A last compaction_trigger: relayed, OpenAI compacts; translated, the gateway does.
  const triggered = !unread && takeCompactionTrigger(body.input).triggered;
  const stream = body.stream === true;
  let translation: ParsedResponsesRequest | undefined;
  const references = unread ? body : await resolveReferences(context, owner, body);
  // Translating may refuse what only OpenAI can run (built-in tools): only when it is needed.
  const translate = () => {
    if (!translation) {
      translation = unread ? deferred.translate() : toCanonical(references);
      context.call.warnings.push(...translation.warnings);
    }
    return translation;
  };
  const promptText = () => JSON.stringify(body.input ?? "") + (body.instructions ?? "");
  context.call.promptText = () => (translation ? [translation.chat.system ?? "", ...translation.chat.messages.map(messageText)].join("\n") : promptText());
  // Saved before the answer's end reaches the client, so an immediate continuation finds it.
  let saving: Promise<void> = Promise.resolve();
  const keep = (response: ResponseObject, native: boolean): Promise<void> => {
    if (requested.store === false || typeof response.id !== "string") return saving;
    const record: StoredResponseRecord = {
      id: response.id,
      native,
      channelId: context.call.channelId,
      model: requested.model,
      conversation: native ? null : conversationAfter(references, response, triggered),
      input: inputItems(requested),
      response,
    };
    saving = context.runtime.responses.save(owner, record).catch((error) => logger.error({ err: error }, "response not stored"));
    return saving;
  };

  // The schema fills nothing in, so unless history was added the client's bytes say what `body` says.
  const bytes = body === requested ? json.bytes : undefined;
  const capabilities = context.runtime.capabilities;
  const response = await runCall(context, {
    operation: "responses",
    model: requested.model,
    stream,
    session: requestSession({ promptCacheKey: (requested as Record<string, unknown>).prompt_cache_key, headers: context.request.headers }),
    pinnedChannelId: previous?.native ? (previous.channelId ?? undefined) : undefined,
    // From the body's length when it goes as sent: a Codex session is not serialised again to be measured.
    estimate: { inputTokens: estimateTokensOfLength(bytes ? bytes.length : promptText().length), outputTokens: body.max_output_tokens ?? env.QUOTA_DEFAULT_OUTPUT_TOKENS },
    renderStreamError: (error) => renderResponsesStreamError(error),
    call: {
      model: body.model,
      relay: { body, bytes, layout: json.layout, stream, includeUsage: true, clientHeaders: context.request.headers, keepResponse: (object: ResponseObject) => keep(object, true) },
      continuesRelayed: previous?.native === true,
      lacksResponses: {
        lacks: (channelId, model) => capabilities.lacks(channelId, model, "responses"),
        learn: (channelId, model) => capabilities.learnMissing(channelId, model, "responses"),
      },
      translate(model) {
        const { chat, tools } = translate();
        // Named after the model that answers: a fallback's, when one serves (as chat completions and messages are).
        // The client's request, not a spread of it: that would parse a deferred input.
        const envelope = newEnvelope(model, requested, tools);
        if (triggered) {
          return {
            chat: compactionRequest(chat),
            render: {
              renderResponse: (answer) => {
                const object = renderTriggeredCompaction(envelope, answer, seals.seal);
                keep(object, false);
                return object;
              },
              renderStream: (events) => renderTriggeredCompactionStream(events, envelope, seals.seal, (object) => keep(object, false)),
            },
          };
        }
        return {
          chat,
          render: {
            renderResponse: (answer) => {
              const object = renderResponse(envelope, answer);
              keep(object, false);
              return object;
            },
            renderStream: (events) => renderResponsesStream(events, envelope, (object) => keep(object, false)),
          },
        };
      },
    },
  });
  await saving;
  return response;
});

/**
 * The request with its `item_reference` inputs replaced by the stored items they name,
 * for the translated path (an upstream serving /responses resolves its own references).
 */
async function resolveReferences(context: GatewayContext, owner: string, body: ResponsesRequest): Promise<ResponsesRequest> {
  if (!Array.isArray(body.input) || !body.input.some((item) => item.type === "item_reference")) return body;
  const stored = await context.runtime.responses.recentItems(owner);
  return {
    ...body,
    input: body.input.map((item, index) => {
      if (item.type !== "item_reference") return item;
      const found = stored.get(String((item as { id?: unknown }).id));
      if (!found) {
        throw new GatewayError("invalid_request", `Item with id '${String((item as { id?: unknown }).id)}' not found.`, { param: `input[${index}]` });
      }
      return found as typeof item;
    }),
  };
}

/** Where a stored response lives, for GET and DELETE (another caller's id is not found). */
async function findStored(context: GatewayContext) {
  const id = context.request.params.id ?? "";
  const stored = await context.runtime.responses.find(ownerOf(context.token.subject), id);
  if (!stored?.response) throw notFound(id);
  context.call.model = stored.model;
  return stored;
}

/** GET /v1/responses/{id} */
export const handleGetResponse = withApiKey(openAIFormat, "/v1/responses/{id}", async (context) => jsonResponse(200, (await findStored(context)).response));

/** DELETE /v1/responses/{id} (the gateway's record; a relayed answer stays with its upstream). */
export const handleDeleteResponse = withApiKey(openAIFormat, "/v1/responses/{id}", async (context) => {
  const stored = await findStored(context);
  await context.runtime.responses.delete(ownerOf(context.token.subject), stored.id);
  return jsonResponse(200, { id: stored.id, object: "response", deleted: true });
});

/** GET /v1/responses/{id}/input_items */
export const handleResponseInputItems = withApiKey(openAIFormat, "/v1/responses/{id}/input_items", async (context) => {
  const stored = await findStored(context);
  const data = (stored.input ?? []).map((item, index) => {
    const record = item as Record<string, unknown>;
    return { id: record.id ?? `item_${stored.id.slice(5, 21)}_${index}`, ...(record.role && !record.type ? { type: "message" } : {}), ...record };
  });
  return jsonResponse(200, { object: "list", data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: false });
});
