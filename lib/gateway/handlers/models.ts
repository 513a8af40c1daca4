import type { Runtime } from "@/lib/runtime";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { anthropicFormat, anthropicVersion } from "@/lib/formats/anthropic";
import { openAIFormat } from "@/lib/formats/openai";
import { withApiKey, type GatewayContext } from "@/lib/gateway/with-api-key";
import type { ApiHandler, ApiRequest } from "@/lib/canonical/api-types";
import { jsonResponse } from "@/lib/canonical/api-types";
import { handleGeminiGetModel, handleGeminiListModels } from "./gemini";
import { unknownModelMessage } from "@/lib/routing/nearest-names";
import { listedModels } from "./listed-models";

// GET /v1/models and /v1/models/{model} belong to three APIs: Anthropic's SDKs send
// `anthropic-version`, Gemini's authenticate with `x-goog-api-key` or `?key=` (and
// @google/genai 3 calls /v1), everyone else is OpenAI's.

// Models have no creation time of their own here; a fixed epoch keeps the list stable.
const CREATED = 1_700_000_000;

function findModel(context: GatewayContext) {
  const id = context.request.params.path ?? "";
  const listed = listedModels(context);
  const model = listed.find((entry) => entry.id === id);
  if (!model)
    throw new GatewayError(
      "not_found",
      unknownModelMessage(
        id,
        listed.map((entry) => entry.id),
      ),
      { code: "model_not_found" },
    );
  return model;
}

const openAIModel = ({ id, ownedBy }: { id: string; ownedBy: string }) => ({ id, object: "model", created: CREATED, owned_by: ownedBy });
const anthropicModel = (id: string) => ({ type: "model", id, display_name: id, created_at: new Date(CREATED * 1000).toISOString() });

const openAIList = withApiKey(openAIFormat, "/v1/models", async (context) => jsonResponse(200, { object: "list", data: listedModels(context).map(openAIModel) }));

const openAIGet = withApiKey(openAIFormat, "/v1/models/{model}", async (context) => jsonResponse(200, openAIModel(findModel(context))));

const anthropicList = withApiKey(anthropicFormat, "/v1/models", async (context) => {
  const data = listedModels(context).map(({ id }) => anthropicModel(id));
  return jsonResponse(200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
});

const anthropicGet = withApiKey(anthropicFormat, "/v1/models/{model}", async (context) => jsonResponse(200, anthropicModel(findModel(context).id)));

/** A Gemini client's credentials, and no Bearer token (which makes the caller OpenAI's). */
function authenticatesTheGeminiWay(request: ApiRequest): boolean {
  if (request.headers.get("authorization") !== null) return false;
  return request.headers.get("x-goog-api-key") !== null || request.url.searchParams.has("key");
}

function byCaller(handlers: { openai: ApiHandler<Runtime>; anthropic: ApiHandler<Runtime>; gemini: ApiHandler<Runtime> }): ApiHandler<Runtime> {
  return (request, runtime) => {
    if (anthropicVersion(request)) return handlers.anthropic(request, runtime);
    if (authenticatesTheGeminiWay(request)) return handlers.gemini(request, runtime);
    return handlers.openai(request, runtime);
  };
}

/** GET /v1/models in the caller's API's shape. */
export const handleListModels = byCaller({ openai: openAIList, anthropic: anthropicList, gemini: handleGeminiListModels });

/** GET /v1/models/{model} in the caller's API's shape. */
export const handleGetModel = byCaller({ openai: openAIGet, anthropic: anthropicGet, gemini: handleGeminiGetModel });
