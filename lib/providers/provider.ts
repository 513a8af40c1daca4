import type { JsonLayout } from "@/lib/canonical/json-body";
import type { z } from "zod";
import type { ChatResponse } from "@/lib/canonical/collect-response";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import type { AbortSource } from "@/lib/canonical/abort-source";
import type { ApiResponse, HeaderReader, ResponseBody } from "@/lib/canonical/api-types";
import type { SpooledForm } from "@/lib/gateway/multipart";
import type { Channel } from "@/lib/routing/channel";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import type { ClientFormatName, Operation } from "./operation";
import type { Transport } from "./transport";
import type { Timeouts, UpstreamClient } from "./upstream-http";

export type { ClientFormatName, Operation } from "./operation";

/** What one upstream attempt on one channel has to work with. */
export interface AttemptContext {
  channel: Channel;
  /** The model name to send upstream (after the channel's modelMap). */
  upstreamModel: string;
  /** Where and how this channel's requests go: URL layout, credentials. */
  transport: Transport;
  http: UpstreamClient;
  /** The client went away (an AbortSignal where an API needs one: abortSignalOf). */
  signal: AbortSource;
  timeouts: Timeouts;
  meter: UsageMeter;
  /** Parameters dropped because the upstream cannot express them. */
  warnings: string[];
  /** Deployments this request already passed through (the loop guard's hop header), this one last. */
  hops: string;
  /**
   * A cache key derived from the client's session (a hash, never the id), for an upstream
   * that routes its prompt cache by one (OpenAI's `prompt_cache_key`) when the client sent none.
   */
  promptCacheKey?: string;
}

/** What listing an upstream's models needs: no model, no meter. */
export type ListContext = Pick<AttemptContext, "channel" | "transport" | "http" | "signal" | "timeouts" | "hops">;

/** Reports a failure after the first byte reached the client (the stream then ends with an error event). */
export interface AttemptHooks {
  streamFailed(error: unknown): void;
}

/** A response relayed in the client's own wire format, untouched but for metering. */
export interface RelayedResponse {
  status: number;
  headers: Record<string, string>;
  body: ResponseBody;
}

/** A client body in its own format, for an upstream that speaks that format. */
export interface RelayRequest {
  /** The validated client body, with unknown fields intact. */
  body: Record<string, unknown>;
  /** The body's bytes as the client sent them, when `body` is exactly what they say: relays forward these, rewritten only where they must be. */
  bytes?: Buffer;
  /** Where the members of `bytes` lie, when the handler scanned them (a rewrite then needs no scan of its own). */
  layout?: JsonLayout;
  stream: boolean;
  /** Whether the client asked for a usage report in the stream. */
  includeUsage: boolean;
  /** The client's headers, for the ones a same-format upstream should see (anthropic-beta). */
  clientHeaders: HeaderReader;
}

/** How a canonical answer is written in the client's format. */
export interface ChatRender {
  renderResponse(response: ChatResponse): unknown;
  renderStream(events: StreamEventBatches): AsyncIterable<string>;
}

/** What every operation's input carries: the public model it is for (a fallback's, once retargeted). */
export interface ModelCall {
  model: string;
}

/** chat, from any client format. */
export interface ChatCall extends ModelCall {
  format: ClientFormatName;
  chat: ChatRequest;
  /** The client's own body, for an upstream that speaks its format. */
  relay?: RelayRequest & { geminiAction?: { method: string; alt?: string } };
  render: ChatRender;
}

/** /v1/responses, relayed to upstreams that serve it, translated through chat for the rest. */
export interface ResponsesCall extends ModelCall {
  relay: RelayRequest & {
    /** A Responses answer's response object, for the gateway's store; awaited before its end reaches the client. */
    keepResponse?: (response: Record<string, unknown>) => Promise<void>;
  };
  /** The request as a canonical chat, built on first use (translation may refuse what only OpenAI runs). */
  translate(model: string): { chat: ChatRequest; render: ChatRender };
  /** Continuing a relayed answer: only the upstream that holds it can, so no translation. */
  continuesRelayed: boolean;
  /** Upstreams that answered 404 on /responses are translated for from then on. */
  lacksResponses: { lacks(channelId: string, model: string): boolean; learn(channelId: string, model: string): void };
}

/**
 * POST /v1/responses/compact: relayed to upstreams that serve it, done by the gateway for
 * every other (`translate` asks the model for a summary and renders the sealed item).
 */
export type CompactCall = ResponsesCall;

/** An OpenAI-format operation other than chat and Responses (JSON, or a multipart upload). */
export interface OperationCall extends RelayRequest, ModelCall {
  /** A multipart upload, for operations that take one (`body` is then empty). */
  form?: SpooledForm;
}

export interface CountTokensCall extends ModelCall {
  chat: ChatRequest;
  render(count: number): unknown;
  /** A Responses body, for an upstream that counts it itself (OpenAI's /responses/input_tokens); those that answer 404 are learnt. */
  responses?: { relay: RelayRequest; lacksCounting: ResponsesCall["lacksResponses"] };
}

/** A realtime WebSocket to the upstream: opening it (its 101) is the attempt's first byte. */
export interface RealtimeCall extends ModelCall {
  /** Client headers the upstream should see (openai-beta). */
  clientHeaders: HeaderReader;
}

export interface RealtimeSocket {
  /** The opened socket (a `ws` WebSocket), with what it sent before the proxy was wired. */
  socket: import("ws").WebSocket;
  early: [import("ws").RawData, boolean][];
  stopBuffering(): void;
}

/** The input and answer of each operation. */
export interface OperationCalls {
  chat: [ChatCall, ApiResponse];
  responses: [ResponsesCall, ApiResponse];
  completions: [OperationCall, ApiResponse];
  embeddings: [OperationCall, ApiResponse];
  images: [OperationCall, ApiResponse];
  "image-edits": [OperationCall, ApiResponse];
  "audio-transcription": [OperationCall, ApiResponse];
  "audio-speech": [OperationCall, ApiResponse];
  rerank: [OperationCall, ApiResponse];
  "count-tokens": [CountTokensCall, ApiResponse];
  compact: [CompactCall, ApiResponse];
  realtime: [RealtimeCall, RealtimeSocket];
}

/**
 * One operation a provider serves. It owns every decision about it: whether this call can
 * be served here (`serves`), whether the body is relayed as bytes or translated, and where
 * usage is read (the attempt meters `context.meter`).
 */
export interface OperationMember<O extends Operation> {
  /** Defaults to yes. */
  serves?(call: OperationCalls[O][0], channel: Channel): boolean;
  attempt(call: OperationCalls[O][0], context: AttemptContext, hooks: AttemptHooks): Promise<OperationCalls[O][1]>;
}

export type ProviderOperations = { [O in Operation]?: OperationMember<O> };

/** One setting of a channel type, as the console's form shows it. */
export interface SettingField {
  name: string;
  label: string;
  help: string;
  required?: boolean;
  /** Stored encrypted, never shown again once saved. */
  secret?: boolean;
  placeholder?: string;
}

/** A channel type's own settings: validated by `schema`, described for the console by `fields`. */
export interface ProviderSettings {
  schema: z.ZodType<Record<string, unknown>>;
  fields: SettingField[];
}

/**
 * An upstream kind: how its channels are reached (a transport) and one member per
 * operation it serves; an absent member is "not supported by this channel", never a
 * branch in the pipeline. A kind that reuses another's wire format passes its own
 * transport to that format's members.
 */
export interface Provider {
  /** Base URL used when a channel leaves it empty; includes the version segment. */
  defaultBaseUrl: string;
  /** The path segment the provider's endpoints hang off ("/v1"), suggested when a base URL lacks one. */
  versionSegment?: string;
  /** Whether a channel must name its base URL (a cloud resource's own host): no default serves it. */
  requiresBaseUrl?: boolean;
  /** What the console says about the base URL where the default does not say it (a cloud's resource URL). */
  baseUrlHelp?: string;
  /** A path people paste after the base URL that the provider adds itself (Azure's `/openai/...`), trimmed on save. */
  pastedSuffix?: RegExp;
  requiresApiKey: boolean;
  /** What the key field takes, where it is not a plain API key (a service account's JSON key), for the console. */
  apiKeyHelp?: string;
  ownedBy: string;
  /** Settings beyond base URL and key (an API version, a region); none when absent. */
  settings?: ProviderSettings;
  /** Builds the transport of one channel (called once per channel version and kept). */
  transport(channel: Channel): Transport;
  /** The upstream's own model names, for the console's "fetch models". */
  listModels?(context: ListContext): Promise<string[]>;
  operations: ProviderOperations;
  /** The chat the channel check and the prober send (the provider's canonical chat). */
  probe?(request: ChatRequest, context: AttemptContext): Promise<StreamEventBatches>;
}

/** The member serving `operation` for this call on this channel, if the provider has one that will. */
export function memberFor<O extends Operation>(provider: Provider, operation: O, call: OperationCalls[O][0], channel: Channel): OperationMember<O> | undefined {
  const member = provider.operations[operation] as OperationMember<O> | undefined;
  if (!member) return undefined;
  return member.serves === undefined || member.serves(call, channel) ? member : undefined;
}
