import { openAIFormat } from "@/lib/formats/openai";
import { withApiKey } from "@/lib/gateway/with-api-key";
import { jsonResponse } from "@/lib/http/api-types";
import { providers } from "@/lib/providers/registry";

// Models have no creation time of their own here; a fixed epoch keeps the list stable.
const CREATED = 1_700_000_000;

/** GET /v1/models: what this token may use, in OpenAI's list shape. */
export const handleListModels = withApiKey(openAIFormat, "/v1/models", async ({ token, runtime }) => {
  const data = [...runtime.channels.models()]
    .filter(([model]) => !token.models || token.models.has(model))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([model, channel]) => ({ id: model, object: "model", created: CREATED, owned_by: providers[channel.type].ownedBy }));
  return jsonResponse(200, { object: "list", data });
});
