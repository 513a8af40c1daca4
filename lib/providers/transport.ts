import type { GatewayError } from "@/lib/canonical/gateway-error";
import type { Channel } from "@/lib/routing/channel";
import type { UpstreamResponse } from "./upstream-http";

// A transport is everything about reaching one channel's upstream that is not the wire
// format: where a format's endpoint lives on it (Azure puts a deployment in the path,
// Vertex a project and location) and how a request proves who sends it (a key header, a
// Bearer token fetched and cached, a signature over the body). The format's members
// build bodies and read answers; the transport only places and authorizes them.

/** An endpoint in the wire format's own terms. */
export interface Endpoint {
  /** The format's path under its base URL: "/chat/completions", "/messages", "/models/gemini-2.5-flash:generateContent". */
  path: string;
  /** The upstream model the request is for (a deployment, an inference profile). */
  model?: string;
  /** Whether the answer is asked for as a stream (some clouds use another path for it). */
  stream?: boolean;
  /** Query parameters beside the path ("alt=sse"), without the "?". */
  query?: string;
}

/** One upstream request before credentials are added to it. */
export interface OutgoingRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string | Buffer | AsyncIterable<Uint8Array>;
}

export interface Transport {
  url(endpoint: Endpoint): string;
  /**
   * The request as this upstream takes it where it differs from the wire format's own,
   * before it is authorized (so a signature covers the final body): Bedrock and Vertex
   * take Anthropic's body with the model in the path and their `anthropic_version` inside.
   */
  prepare?(endpoint: Endpoint, request: OutgoingRequest): void;
  /** Adds credentials to a request about to go out (may fetch and cache a token). */
  authorize(request: OutgoingRequest): void | Promise<void>;
  /**
   * A successful answer as the wire format's own bytes where the upstream frames it
   * otherwise (Bedrock streams AWS's binary event stream, one Anthropic event in each).
   */
  decode?(endpoint: Endpoint, response: UpstreamResponse): UpstreamResponse;
  /**
   * An error answer in the upstream's own shape where it is not the wire format's (AWS's
   * `x-amzn-errortype`, Google's `{error:{status}}`); undefined leaves it to the format's parser.
   */
  readError?(status: number, bodyText: string, headers: UpstreamResponse["headers"]): GatewayError | undefined;
  /** The WebSocket URL and headers of a realtime endpoint, where the provider has one. */
  socket?(endpoint: Endpoint): Promise<{ url: string; headers: Record<string, string> }>;
}

export function joinUrl(baseUrl: string, path: string, query?: string): string {
  // Stored base URLs have no trailing slash; the expression runs only for one that has.
  const base = baseUrl.endsWith("/") ? baseUrl.replace(/\/+$/, "") : baseUrl;
  return `${base}${path}${query ? `?${query}` : ""}`;
}

/**
 * The common case: endpoints under the channel's base URL as they are, and the key in
 * one header (`authorization: Bearer <key>`, `x-api-key`, `x-goog-api-key`...).
 */
export function keyHeaderTransport(channel: Channel, header: string, format: (key: string) => string = (key) => key): Transport {
  // Formatted once per transport (one per channel and key), not per request.
  const value = channel.apiKey ? format(channel.apiKey) : undefined;
  return {
    url: (endpoint) => joinUrl(channel.baseUrl, endpoint.path, endpoint.query),
    authorize(request) {
      if (value) request.headers[header] = value;
    },
    async socket(endpoint) {
      return { url: joinUrl(channel.baseUrl, endpoint.path, endpoint.query).replace(/^http/, "ws"), headers: value ? { [header]: value } : {} };
    },
  };
}

export const bearer = (key: string) => `Bearer ${key}`;
