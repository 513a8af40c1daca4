import type { GatewayContext } from "@/lib/gateway/with-api-key";
import { providers } from "@/lib/providers/registry";

/** The models this token may use, sorted, with who serves them. */
export function listedModels({ token, runtime }: Pick<GatewayContext, "token" | "runtime">) {
  return [...runtime.channels.models()]
    .filter(([model]) => !token.models || token.models.has(model))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, channel]) => ({ id, ownedBy: providers[channel.type].ownedBy }));
}
