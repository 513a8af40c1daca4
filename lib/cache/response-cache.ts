import { checkedEndUser, endUserOf, loggedEndUser, payersWithEndUser } from "@/lib/teams/end-users";
import { collectResponse, type ChatResponse } from "@/lib/canonical/collect-response";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent, StreamEventBatches } from "@/lib/canonical/stream-event";
import { isAsyncIterable, jsonResponse, type ApiResponse } from "@/lib/canonical/api-types";
import { env } from "@/lib/env";
import type { GatewayContext } from "@/lib/gateway/with-api-key";
import { costOf } from "@/lib/limits/prices";
import { logger } from "@/lib/logger";
import type { ClientFormatName } from "@/lib/providers/operation";
import { readRelayedAnswer } from "@/lib/providers/relayed-answer";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import { decodeCachedAnswer, encodeCachedAnswer, isCompleteAnswer, replayEvents } from "./cached-answer";
import { chargeCacheHit } from "./hit-charge";
import { cacheOwner, responseCacheKey } from "./response-cache-key";
import { databaseCacheStore, sharedStateCacheStore, type ResponseCacheStore } from "./response-cache-store";

/** A request opts in with the seconds its answer may be kept (at most its token's `cacheTtlSeconds`). */
export const CACHE_TTL_HEADER = "x-gateway-cache-ttl";
/** `no-store` on a request: neither read nor written. On a response: `hit` or `miss`. */
export const CACHE_HEADER = "x-gateway-cache";

/** What the cache needs of a chat call's plan (call-chat.ts's ChatPlan). */
interface ChatPlan {
  chat: ChatRequest;
  relay?: { body: Record<string, unknown> };
  renderResponse(response: ChatResponse): unknown;
  renderStream(events: StreamEventBatches): AsyncIterable<string>;
}

const stores = new WeakMap<Runtime, ResponseCacheStore>();

/** Redis when the processes share one (REDIS_URL), else the database; built once per runtime. */
function storeFor(runtime: Runtime): ResponseCacheStore {
  let store = stores.get(runtime);
  if (!store) {
    const maxBytes = env.RESPONSE_CACHE_MAX_MB * 1024 * 1024;
    store = runtime.shared.kind === "redis" ? sharedStateCacheStore(runtime.shared, maxBytes) : databaseCacheStore(runtime.database, maxBytes);
    stores.set(runtime, store);
  }
  return store;
}

/**
 * How long this request's answer may be cached, or undefined when it does not take part:
 * no `x-gateway-cache-ttl`, `x-gateway-cache: no-store`, or a token that allows no caching.
 * A TTL above the token's is lowered to it (and said so in the log row's warnings).
 */
export function requestedCacheTtl(context: Pick<GatewayContext, "request" | "token" | "call">): number | undefined {
  const { headers } = context.request;
  if (headers.get(CACHE_HEADER)?.trim().toLowerCase() === "no-store") return undefined;
  const asked = headers.get(CACHE_TTL_HEADER);
  if (asked === null) return undefined;
  if (!/^\s*\d{1,9}\s*$/.test(asked) || Number(asked) < 1) {
    throw new GatewayError("invalid_request", `${CACHE_TTL_HEADER} must be a whole number of seconds, at least 1.`, { code: "invalid_cache_ttl" });
  }
  const allowed = context.token.cacheTtlSeconds;
  if (!allowed) {
    context.call.warnings.push(`${CACHE_TTL_HEADER} ignored: this API key does not allow response caching`);
    return undefined;
  }
  const ttl = Number(asked);
  if (ttl > allowed) context.call.warnings.push(`${CACHE_TTL_HEADER} ${ttl} lowered to this API key's ${allowed} seconds`);
  return Math.min(ttl, allowed);
}

/**
 * The exact response cache around one chat call. A hit is answered from the stored canonical
 * response in the caller's format (streamed when asked), counts as one request for every
 * limit that counts requests, spends no tokens or money and is logged with the cost it
 * saved. A miss is called as usual (relayed as bytes to an upstream of the caller's format,
 * translated otherwise) and kept in canonical form once it completed with a known finish
 * reason: errors, cut streams, answers without one and client disconnects never are.
 */
export async function withResponseCache<Plan extends ChatPlan>(context: GatewayContext, plan: Plan, call: (plan: Plan) => Promise<ApiResponse>): Promise<ApiResponse> {
  const ttlSeconds = requestedCacheTtl(context);
  if (ttlSeconds === undefined) return call(plan);
  const { log, token, runtime } = context;
  const store = storeFor(runtime);
  const key = responseCacheKey(cacheOwner(token), context.format.name, plan.chat, plan.relay?.body);

  const stored = await store.get(key).catch((error) => {
    logger.error({ err: error, requestId: log.id }, "response cache read failed; asking the upstream");
    return undefined;
  });
  const cached = stored === undefined ? undefined : decodeCachedAnswer(stored);
  // A request's TTL is also the oldest answer it takes, whoever stored it for longer.
  const fresh = cached !== undefined && Date.now() - cached.storedAt <= ttlSeconds * 1000;
  // An entry an earlier version kept though incomplete is not replayed either.
  const usable = fresh && isCompleteAnswer(cached.response);
  // A model the key may not use is refused by the call path, cached or not.
  if (cached && usable && (!token.models || token.models.has(plan.chat.model))) return answerFromCache(context, plan, cached.response, cached.costUsd);

  context.call.cacheStatus = "miss";
  const keep = async (response: ChatResponse | undefined) => {
    if (!response || !isCompleteAnswer(response)) return;
    try {
      // A relayed stream hides the usage the caller did not ask for; the meter has it.
      const usage = response.usage ?? context.call.meter.usage;
      const kept = { ...response, usage };
      await store.put(key, encodeCachedAnswer(kept, costOf(usage ?? { promptTokens: 0, completionTokens: 0 }, context.call.price)), ttlSeconds);
    } catch (error) {
      logger.error({ err: error, requestId: log.id }, "response cache write failed");
    }
  };
  let rendered = false;
  let collected: ChatResponse | undefined;
  const answer = await call({
    ...plan,
    renderResponse: (response) => {
      rendered = true;
      collected = response;
      return plan.renderResponse(response);
    },
    renderStream: (events) => {
      rendered = true;
      return plan.renderStream(keptWhenComplete(events, keep));
    },
  });
  const headers = { ...answer.headers, [CACHE_HEADER]: "miss" };
  if (answer.status !== 200) return { ...answer, headers };
  if (rendered) {
    await keep(collected);
    return { ...answer, headers };
  }
  // Relayed as the upstream's own bytes: read back into canonical form once complete.
  const read = (bytes: Buffer) => readRelayedAnswer(context.format.name as ClientFormatName, bytes, String(answer.headers["content-type"] ?? ""), plan.chat.stream);
  const { body } = answer;
  if (isAsyncIterable(body)) return { ...answer, headers, body: relayKeptWhenComplete(body, async (bytes) => keep(await read(bytes))) };
  if (body !== null) await keep(await read(Buffer.from(body)));
  return { ...answer, headers };
}

async function answerFromCache(context: GatewayContext, plan: ChatPlan, response: ChatResponse, costUsd: number): Promise<ApiResponse> {
  const { call, token, runtime } = context;
  call.model = plan.chat.model;
  call.stream = plan.chat.stream;
  // A hit is a request like any other for every limit that counts requests (rpm and the
  // `requests` of each window, the owner's included), and free for every other limit.
  // The end user's windows too (a chat's `user`, or the x-end-user-id header).
  const named = endUserOf({ chat: plan.chat, relay: plan.relay }, context.request.headers);
  call.endUser = named === undefined ? null : loggedEndUser(named);
  const endUser = named !== undefined && token.endUserWindows?.length ? checkedEndUser(named) : undefined;
  await chargeCacheHit(runtime.limits, payersWithEndUser(token, endUser), plan.chat.model);
  call.cacheStatus = "hit";
  call.cacheSavedUsd = costUsd;
  call.meter.markFirstToken();
  const headers = { [CACHE_HEADER]: "hit" };
  if (!plan.chat.stream) return jsonResponse(200, plan.renderResponse(response), headers);
  return { status: 200, headers: { ...SSE_HEADERS, ...headers }, body: plan.renderStream(once(replayEvents(response))) };
}

async function* once(events: StreamEvent[]): StreamEventBatches {
  yield events;
}

/** Passes a relayed body through and hands its bytes on once it ended (not when the client left or it broke). */
async function* relayKeptWhenComplete(body: AsyncIterable<string | Uint8Array>, keep: (bytes: Buffer) => Promise<void>): AsyncGenerator<string | Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) {
    chunks.push(Buffer.from(chunk));
    yield chunk;
  }
  await keep(Buffer.concat(chunks));
}

/** Passes a stream's events through and keeps the response once the stream ended with a finish and no error. */
async function* keptWhenComplete(batches: StreamEventBatches, keep: (response: ChatResponse) => Promise<void>): StreamEventBatches {
  const seen: StreamEvent[][] = [];
  for await (const batch of batches) {
    seen.push(batch);
    yield batch;
  }
  // An error event is a failed stream; one without a finish was cut: neither is kept.
  const events = seen.flat();
  if (events.some((event) => event.type === "error") || !events.some((event) => event.type === "finish")) return;
  // Kept before the stream's last bytes go out, so a client that read it all can hit at once.
  await keep(await collectResponse(once(events)));
}
