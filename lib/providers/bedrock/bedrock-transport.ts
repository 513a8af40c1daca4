import type { Channel } from "@/lib/routing/channel";
import { IteratedBody, type UpstreamBody } from "@/lib/providers/upstream-http";
import { joinUrl, type Endpoint, type Transport } from "@/lib/providers/transport";
import { keySecrets, readBedrockKey, unusableKeyError } from "./credentials";
import { anthropicSseFromEventStream, toInvokeRequest } from "./invoke";
import { FOUNDATION_MODELS_PATH, INFERENCE_PROFILES_PATH } from "./list-models";
import { parseBedrockError } from "./parse-error";
import { bedrockRegion } from "./settings";
import { awsSigner } from "./sign-request";

// Where Bedrock's runtime puts each endpoint and how a request proves who sends it. The
// wire formats' members speak of "/messages" (Anthropic's) and "/converse" (Bedrock's
// own); here they become `/model/{id}/invoke[-with-response-stream]` and
// `/model/{id}/converse[-stream]`, signed with SigV4 or sent with a Bedrock API key.

/** The path Anthropic's Messages members post to; on Bedrock, InvokeModel. */
export const MESSAGES_PATH = "/messages";
/** The Converse API, as its members name it. */
export const CONVERSE_PATH = "/converse";
/** CountTokens (Claude models). */
export const COUNT_TOKENS_PATH = "/count-tokens";

/** The model id as AWS's SDK puts it in a path: every reserved character escaped (`:` as %3A, `/` of an ARN as %2F). */
export function encodeModelId(model: string): string {
  return encodeURIComponent(model).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

function bedrockPath(endpoint: Endpoint): string {
  const model = `/model/${encodeModelId(endpoint.model ?? "")}`;
  switch (endpoint.path) {
    case MESSAGES_PATH:
      return `${model}/${endpoint.stream ? "invoke-with-response-stream" : "invoke"}`;
    case CONVERSE_PATH:
      return `${model}/${endpoint.stream ? "converse-stream" : "converse"}`;
    case COUNT_TOKENS_PATH:
      return `${model}/count-tokens`;
    default:
      return endpoint.path;
  }
}

/** Paths of the control plane (the `bedrock` host beside `bedrock-runtime`). */
const CONTROL_PATHS = new Set([FOUNDATION_MODELS_PATH, INFERENCE_PROFILES_PATH]);

/** The control plane beside a runtime URL: AWS's own host renamed; any other base URL (a proxy) serves both. */
function controlPlaneUrl(runtimeUrl: string): string {
  return runtimeUrl.replace(/^(https?:\/\/)bedrock-runtime\./, "$1bedrock.");
}

export function bedrockTransport(channel: Channel): Transport {
  const region = bedrockRegion(channel);
  const baseUrl = channel.baseUrl.replaceAll("{region}", region);
  const controlUrl = controlPlaneUrl(baseUrl);
  const key = readBedrockKey(channel.apiKey);
  const secrets = keySecrets(key, channel.apiKey);
  const sign = key.kind === "aws" ? awsSigner(region, key.credentials) : undefined;
  return {
    url: (endpoint) => joinUrl(CONTROL_PATHS.has(endpoint.path) ? controlUrl : baseUrl, bedrockPath(endpoint), endpoint.query),
    prepare(endpoint, request) {
      if (endpoint.path === MESSAGES_PATH) toInvokeRequest(request);
      // Signed and sent as the same bytes: one encoding of the body, hashed where it lies.
      else if (typeof request.body === "string") request.body = Buffer.from(request.body);
      if (endpoint.stream) request.headers.accept = "application/vnd.amazon.eventstream";
      else if (request.method === "POST") request.headers.accept = "application/json";
    },
    async authorize(request) {
      if (key.kind === "invalid") throw unusableKeyError(key.reason);
      if (key.kind === "api-key") request.headers.authorization = `Bearer ${key.key}`;
      else await sign!(request);
    },
    decode(endpoint, response) {
      const framed = String(response.headers["content-type"] ?? "").includes("application/vnd.amazon.eventstream");
      if (endpoint.path !== MESSAGES_PATH || !endpoint.stream || !framed) return response;
      return {
        ...response,
        headers: { ...response.headers, "content-type": "text/event-stream" },
        body: new TransformedBody(response.body, anthropicSseFromEventStream),
      };
    },
    readError: (status, bodyText, headers) => parseBedrockError(status, bodyText, headers, secrets),
  };
}

/** An upstream body read through a transformation of its bytes. */
class TransformedBody extends IteratedBody {
  constructor(
    private readonly inner: UpstreamBody,
    private readonly transform: (source: AsyncIterable<Uint8Array>) => AsyncIterable<Uint8Array>,
  ) {
    super();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.transform(this.inner)[Symbol.asyncIterator]();
  }

  dump(): Promise<void> {
    return this.inner.dump();
  }

  destroy(): void {
    this.inner.destroy();
  }
}
