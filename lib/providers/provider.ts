import type { EmbeddingsRequest, EmbeddingsResult } from "@/lib/canonical/embeddings";
import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEventBatches } from "@/lib/canonical/stream-event";
import type { HeaderReader, ResponseBody } from "@/lib/http/api-types";
import type { SpooledForm } from "@/lib/http/multipart";
import type { Channel } from "@/lib/routing/channel";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import type { ClientFormatName, Operation, RelayKey } from "./operation";
import type { Timeouts, UpstreamClient } from "./upstream-http";

export type { ClientFormatName, Operation, RelayKey } from "./operation";

export interface CallContext {
  channel: Channel;
  /** The model name to send upstream (after the channel's modelMap). */
  upstreamModel: string;
  http: UpstreamClient;
  signal: AbortSignal;
  timeouts: Timeouts;
  meter: UsageMeter;
  /** Parameters dropped because the upstream cannot express them. */
  warnings: string[];
}

/** A response relayed in the client's own wire format, untouched but for metering. */
export interface RelayedResponse {
  status: number;
  headers: Record<string, string>;
  body: ResponseBody;
}

export interface RelayRequest {
  /** The validated client body, with unknown fields intact. */
  body: Record<string, unknown>;
  /** The body's bytes as the client sent them, when `body` is exactly what they say: relays forward these, rewritten only where they must be. */
  bytes?: Buffer;
  stream: boolean;
  /** Whether the client asked for a usage report in the stream. */
  includeUsage: boolean;
  /** The client's headers, for the ones a same-format upstream should see (anthropic-beta). */
  clientHeaders: HeaderReader;
  /** A multipart upload, for relays that take one (the `body` is then empty). */
  form?: SpooledForm;
  /** Gemini puts the model and the method in the path; the relay needs the path's parts. */
  geminiAction?: { method: string; alt?: string };
  /** A Responses answer's response object, for the gateway's store; awaited before its end reaches the client. */
  keepResponse?: (response: Record<string, unknown>) => Promise<void>;
}

/** What listing an upstream's models needs: no model, no meter. */
export type ListContext = Pick<CallContext, "channel" | "http" | "signal" | "timeouts">;

export type Relay = (request: RelayRequest, context: CallContext) => Promise<RelayedResponse>;

/**
 * An upstream kind. Each operation it serves is a member; an absent one is "not
 * supported by this channel", never a branch in the pipeline.
 */
export interface Provider {
  /** Base URL used when a channel leaves it empty; includes the version segment. */
  defaultBaseUrl: string;
  /** The path segment the provider's endpoints hang off ("/v1"), suggested when a base URL lacks one. */
  versionSegment?: string;
  /** The upstream's own model names, for the console's "fetch models". */
  listModels?(context: ListContext): Promise<string[]>;
  requiresApiKey: boolean;
  /** chat: a canonical request in, canonical events out (any client format). */
  chat?(request: ChatRequest, context: CallContext): Promise<StreamEventBatches>;
  /** embeddings: vectors for texts (a translated path; OpenAI-type channels relay instead). */
  embeddings?(request: EmbeddingsRequest, context: CallContext): Promise<EmbeddingsResult>;
  /** count-tokens: the exact prompt token count, where the upstream offers one. */
  countTokens?(request: ChatRequest, context: CallContext): Promise<number>;
  /**
   * Same-format relays, keyed by (client format, operation): the body goes through
   * without a lossy round trip through the canonical request.
   */
  relays?: Partial<Record<RelayKey, Relay>>;
  /** realtime: the path of the upstream's realtime WebSocket under the channel's base URL. */
  realtimePath?: string;
  /** Models the provider serves without any configuration (the mock). */
  builtinModels?: string[];
  ownedBy: string;
}

/** Whether a provider can serve an operation for a client format at all. */
export function providerServes(provider: Provider, operation: Operation, format: ClientFormatName): boolean {
  if (provider.relays?.[`${format}:${operation}`]) return true;
  switch (operation) {
    case "chat":
      return provider.chat !== undefined;
    case "count-tokens":
      return provider.countTokens !== undefined;
    case "embeddings":
      return provider.embeddings !== undefined;
    case "realtime":
      return provider.realtimePath !== undefined;
    default:
      return false;
  }
}
