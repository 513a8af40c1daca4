import { anthropicFormat, anthropicVersion } from "@/lib/formats/anthropic";
import { openAIFormat } from "@/lib/formats/openai";
import { withApiKey, type GatewayContext } from "@/lib/gateway/with-api-key";
import type { ApiHandler } from "@/lib/canonical/api-types";
import { jsonResponse } from "@/lib/canonical/api-types";
import { providers } from "@/lib/providers/registry";

// Models have no creation time of their own here; a fixed epoch keeps the list stable.
const CREATED = 1_700_000_000;

/** The models this token may use, sorted, with who serves them. */
export function listedModels({ token, runtime }: Pick<GatewayContext, "token" | "runtime">) {
  return [...runtime.channels.models()]
    .filter(([model]) => !token.models || token.models.has(model))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, channel]) => ({ id, ownedBy: providers[channel.type].ownedBy }));
}

const openAIList = withApiKey(openAIFormat, "/v1/models", async (context) =>
  jsonResponse(200, {
    object: "list",
    data: listedModels(context).map(({ id, ownedBy }) => ({ id, object: "model", created: CREATED, owned_by: ownedBy })),
  }),
);

const anthropicList = withApiKey(anthropicFormat, "/v1/models", async (context) => {
  const data = listedModels(context).map(({ id }) => ({
    type: "model",
    id,
    display_name: id,
    created_at: new Date(CREATED * 1000).toISOString(),
  }));
  return jsonResponse(200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
});

/** GET /v1/models: Anthropic's shape when the client sends Anthropic's version header, else OpenAI's. */
export const handleListModels: ApiHandler = (request) =>
  anthropicVersion(request) ? anthropicList(request) : openAIList(request);
