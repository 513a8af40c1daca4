import { toGatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import { providers } from "@/lib/providers/registry";
import type { Channel } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { versionSuggestion } from "@/lib/providers/base-url";

export type ModelListing = { ok: true; models: string[] } | { ok: false; error: string; suggestion?: string };

/** The upstream's own model list for a channel (saved or a draft), sorted, for picking from. */
export async function fetchUpstreamModels(runtime: Runtime, channel: Channel): Promise<ModelListing> {
  const list = providers[channel.type].listModels;
  if (!list) return { ok: false, error: `Channels of type '${channel.type}' cannot list models.` };
  const attempt = async (baseUrl: string): Promise<ModelListing> => {
    const waitMs = Math.min(env.UPSTREAM_TIMEOUT_MS, 20_000);
    try {
      const target = { ...channel, baseUrl };
      const models = await list({
        channel: target,
        transport: runtime.providers[channel.type].transport(target),
        hops: runtime.deploymentId,
        http: runtime.upstream,
        signal: AbortSignal.timeout(waitMs + 1000),
        timeouts: { connectMs: Math.min(env.UPSTREAM_CONNECT_TIMEOUT_MS, waitMs), firstByteMs: waitMs, idleMs: waitMs, totalMs: waitMs },
      });
      return { ok: true, models: [...new Set(models)].sort() };
    } catch (error) {
      return { ok: false, error: toGatewayError(error).message };
    }
  };
  const listing = await attempt(channel.baseUrl);
  if (listing.ok) return listing;
  const candidate = versionSuggestion(channel.type, channel.baseUrl);
  if (candidate && (await attempt(candidate)).ok) {
    return { ok: false, error: `${channel.baseUrl} has no model list, but ${candidate} has: did you mean ${candidate}?`, suggestion: candidate };
  }
  return { ok: false, error: `Could not list the upstream's models: ${listing.error}` };
}
