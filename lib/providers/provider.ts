import type { ChatRequest } from "@/lib/canonical/request";
import type { StreamEvent } from "@/lib/canonical/stream-event";
import type { HeaderReader, ResponseBody } from "@/lib/http/api-types";
import type { Channel } from "@/lib/routing/channel";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import type { UpstreamClient } from "./upstream-http";

export type ClientFormatName = "openai" | "anthropic" | "gemini";

export interface CallContext {
  channel: Channel;
  /** The model name to send upstream (after the channel's modelMap). */
  upstreamModel: string;
  http: UpstreamClient;
  signal: AbortSignal;
  timeoutMs: number;
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
  stream: boolean;
  /** Whether the client asked for a usage report in the stream. */
  includeUsage: boolean;
  /** The client's headers, for the ones a same-format upstream should see (anthropic-beta). */
  clientHeaders: HeaderReader;
  /** Gemini puts the model and the method in the path; the relay needs the path's parts. */
  geminiAction?: { method: string; alt?: string };
}

export interface Provider {
  /** Base URL used when a channel leaves it empty; includes the version segment. */
  defaultBaseUrl: string;
  requiresApiKey: boolean;
  /** Calls the upstream with a canonical request; events follow its stream. */
  chat(request: ChatRequest, context: CallContext): Promise<AsyncIterable<StreamEvent>>;
  /**
   * Same-format relays: when the client speaks the upstream's own format the body
   * goes through without a lossy round trip through the canonical request.
   */
  relay?: Partial<Record<ClientFormatName, (request: RelayRequest, context: CallContext) => Promise<RelayedResponse>>>;
  /** Exact prompt token count from the upstream, where it offers one. */
  countTokens?(request: ChatRequest, context: CallContext): Promise<number>;
  /** Models the provider serves without any configuration (the mock). */
  builtinModels?: string[];
  ownedBy: string;
}
