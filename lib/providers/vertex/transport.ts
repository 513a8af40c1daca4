import { joinUrl, type Endpoint, type Transport } from "@/lib/providers/transport";
import type { Channel } from "@/lib/routing/channel";
import { readGoogleError } from "./parse-error";
import { vertexAnthropicBody, vertexGeminiBody } from "./prepare-body";
import { tokensForKey, type AccessTokens } from "./service-account";
import { readVertexSettings } from "./settings";

// Where Vertex keeps each wire format's endpoints, and its credentials. Everything hangs
// off `{base}/v1/projects/{project}/locations/{location}`: Gemini's
// `/models/{m}:{method}` becomes `/publishers/google/models/{m}:{method}`, Anthropic's
// `/messages` becomes `/publishers/anthropic/models/{m}:rawPredict` (`:streamRawPredict`
// for a stream) and `/messages/count_tokens` the `count-tokens:rawPredict` model.

/** The default base URL as the console shows it; the channel's location fills it in. */
export const VERTEX_BASE_URL_TEMPLATE = "https://{location}-aiplatform.googleapis.com";

const GEMINI_METHOD = /^\/models\/([^/:?]+):(\w+)$/;

/** Multi-regions, served from their own regional-endpoint hosts. */
const MULTI_REGIONS = new Set(["us", "eu"]);

/** The host of a location: a region's own, a multi-region's, or the global one. */
export function vertexBaseUrl(baseUrl: string, location: string): string {
  if (baseUrl !== VERTEX_BASE_URL_TEMPLATE) return baseUrl.replace(/\/+$/, "");
  if (location === "global") return "https://aiplatform.googleapis.com";
  if (MULTI_REGIONS.has(location)) return `https://aiplatform.${location}.rep.googleapis.com`;
  return baseUrl.replace("{location}", location);
}

export function vertexTransport(channel: Channel): Transport {
  const { project, location } = readVertexSettings(channel.settings);
  const base = vertexBaseUrl(channel.baseUrl, location);
  // A pasted base URL may carry the version already.
  const root = `${/\/v1(beta1)?$/.test(base) ? base : `${base}/v1`}/projects/${project}/locations/${location}`;
  let tokens: AccessTokens | undefined;

  const url = (endpoint: Endpoint): string => {
    const gemini = GEMINI_METHOD.exec(endpoint.path);
    if (gemini) return joinUrl(root, `/publishers/google/models/${gemini[1]}:${gemini[2]}`, endpoint.query);
    if (endpoint.path === "/messages") {
      // Claude ids keep their `@version` as Anthropic's Vertex SDK sends them.
      const model = encodeURIComponent(endpoint.model ?? "").replace(/%40/g, "@");
      return joinUrl(root, `/publishers/anthropic/models/${model}:${endpoint.stream ? "streamRawPredict" : "rawPredict"}`, endpoint.query);
    }
    if (endpoint.path === "/messages/count_tokens") return joinUrl(root, "/publishers/anthropic/models/count-tokens:rawPredict", endpoint.query);
    if (endpoint.path === "/models") return joinUrl(root, "/publishers/google/models", endpoint.query);
    return joinUrl(root, endpoint.path, endpoint.query);
  };

  return {
    url,
    prepare(endpoint, request) {
      const gemini = GEMINI_METHOD.exec(endpoint.path);
      if (gemini) {
        request.body = vertexGeminiBody(request.body, gemini[2]!);
      } else if (endpoint.path.startsWith("/messages")) {
        request.body = vertexAnthropicBody(request.body, endpoint.path === "/messages/count_tokens");
        // The version goes in the body on Vertex; `anthropic-beta` stays a header, as Vertex reads it.
        delete request.headers["anthropic-version"];
      }
    },
    async authorize(request) {
      tokens ??= tokensForKey(channel.apiKey);
      request.headers.authorization = `Bearer ${await tokens.token()}`;
    },
    readError(status, bodyText, headers) {
      const error = readGoogleError(status, bodyText, headers, tokens?.secrets() ?? []);
      // A token Google no longer takes (revoked, the account's keys rotated) is not kept for the next call.
      if (status === 401) tokens?.reset();
      return error;
    },
  };
}
