import { HOPS_HEADER, LOOP_PROBE_HEADER, loopProbeMark } from "@/lib/net/loop-guard";
import type { Channel } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime/runtime-types";

/**
 * Whether a channel's base URL leads back to this deployment: one GET of its model list
 * sent as this deployment's own request, which this gateway (any of its processes)
 * refuses with 508. Anything else, an error included, is not a loop.
 */
export async function leadsBackHere(runtime: Runtime, channel: Channel): Promise<boolean> {
  // A provider's own public endpoint is never this gateway.
  if (channel.baseUrl === runtime.providers[channel.type].defaultBaseUrl) return false;
  const url = runtime.providers[channel.type].transport(channel).url({ path: "/models" });
  if (!/^https?:/.test(url)) return false;
  try {
    const response = await runtime.upstream.send({
      url,
      method: "GET",
      // Marked as the check's own, so the gateway that refuses it keeps no row of it.
      headers: { [HOPS_HEADER]: runtime.deploymentId, [LOOP_PROBE_HEADER]: loopProbeMark(runtime.secrets.encryptionKey) },
      signal: AbortSignal.timeout(5000),
      timeouts: { connectMs: 3000, firstByteMs: 4000, idleMs: 4000, totalMs: 5000 },
    });
    await response.body.dump();
    return response.status === 508;
  } catch {
    return false;
  }
}

export const LOOP_MESSAGE = "The base URL leads back to this gateway: a channel has to point at an upstream provider, not at this deployment.";
