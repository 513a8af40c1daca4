import { isGatewayError } from "@/lib/canonical/gateway-error";
import { isWebPageMessage } from "@/lib/providers/describe-body";
import { providers } from "@/lib/providers/registry";
import type { ChannelType } from "@/lib/routing/channel";

// Base URLs as people paste them: with a trailing slash, with the endpoint itself on
// the end, or without the version segment the provider's paths hang off.

// Endpoint paths people copy from docs along with the host; the provider adds them itself.
const PASTED_ENDPOINT = /\/(chat\/completions|completions|messages|responses|embeddings|models(\/[^/]*)?(:\w+)?)$/i;
// A path segment such as v1, v1beta, v2alpha or v4: most APIs hang their paths off one.
const VERSION_SEGMENT = /\/v\d+(alpha|beta)?\d*(\/|$)/i;

export interface NormalizedBaseUrl {
  url: string;
  /** What was changed, to tell the administrator. */
  changes: string[];
}

/**
 * Trims, drops trailing slashes, a pasted endpoint path and a path the channel's type adds
 * itself; never guesses a version segment.
 */
export function normalizeBaseUrl(raw: string, type?: ChannelType): NormalizedBaseUrl {
  const changes: string[] = [];
  let url = raw.trim().replace(/\/+$/, "");
  const suffix = type ? providers[type].pastedSuffix?.exec(safePath(url)) : null;
  if (suffix && url.endsWith(suffix[0])) {
    url = url.slice(0, url.length - suffix[0].length);
    changes.push(`removed '${suffix[0]}' from the end: the gateway adds it for this type itself`);
    return { url, changes };
  }
  const endpoint = PASTED_ENDPOINT.exec(safePath(url));
  if (endpoint && url.endsWith(endpoint[0])) {
    url = url.slice(0, url.length - endpoint[0].length);
    changes.push(`removed '${endpoint[0]}' from the end: the gateway adds each endpoint's path itself`);
  }
  return { url, changes };
}

/**
 * The base URL with the provider's version segment added, when the path has none
 * (`http://host:8000` for an OpenAI-compatible server usually means `http://host:8000/v1`).
 */
export function versionSuggestion(type: ChannelType, url: string): string | null {
  const segment = providers[type].versionSegment;
  if (!segment || VERSION_SEGMENT.test(safePath(url))) return null;
  return `${url.replace(/\/+$/, "")}${segment}`;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname.replace(/\/+$/, "");
  } catch {
    return "";
  }
}

/**
 * What a channel's health says when its base URL answers 404 for the endpoint itself. It
 * names no other URL: only a check that probed one and found an API there may suggest it
 * (check-channel.ts, fetch-models.ts).
 */
export function missingPathReason(type: ChannelType, baseUrl: string, upstreamMessage: string): string {
  const segment = versionSuggestion(type, baseUrl) ? `; many servers expect a version segment such as ${providers[type].versionSegment}` : "";
  if (isWebPageMessage(upstreamMessage)) {
    return `${baseUrl} ${upstreamMessage.replace(/^The upstream /, "").replace(/\.$/, "")}: check the channel's base URL${segment}.`;
  }
  return `The upstream has no such endpoint under ${baseUrl} (HTTP 404: ${upstreamMessage}): check the channel's base URL${segment}.`;
}

/**
 * An upstream 404 about the path rather than the model (every provider names the model
 * when that is what it lacks): the channel's base URL is wrong, not the caller's request.
 */
export function isMissingPath(error: unknown, upstreamModel: string): boolean {
  return isGatewayError(error) && error.upstreamStatus === 404 && !error.message.toLowerCase().includes(upstreamModel.toLowerCase());
}
