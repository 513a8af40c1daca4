import { z } from "zod";
import { getJson } from "@/lib/providers/post-json";
import type { ListContext } from "@/lib/providers/provider";
import { parseOtherError } from "./parse-error";

// Bedrock lists its models on the control plane (the `bedrock` host, not `bedrock-runtime`;
// the transport places these paths there): the foundation models that generate text on
// demand, and the cross-region inference profiles (`us.anthropic.claude-…`), which newer
// models can only be called through.

export const FOUNDATION_MODELS_PATH = "/foundation-models";
export const INFERENCE_PROFILES_PATH = "/inference-profiles";

const foundationModelsSchema = z.looseObject({
  modelSummaries: z.array(
    z.looseObject({
      modelId: z.string(),
      inferenceTypesSupported: z.array(z.string()).nullish(),
      modelLifecycle: z.looseObject({ status: z.string().optional() }).nullish(),
    }),
  ),
});
const inferenceProfilesSchema = z.looseObject({
  inferenceProfileSummaries: z.array(z.looseObject({ inferenceProfileId: z.string(), status: z.string().optional() })).nullish(),
});

export async function listBedrockModels(context: ListContext): Promise<string[]> {
  const foundation = foundationModelsSchema.parse(await getJson(context, { path: FOUNDATION_MODELS_PATH, query: "byOutputModality=TEXT" }, {}, parseOtherError));
  const onDemand = foundation.modelSummaries
    .filter((model) => (model.inferenceTypesSupported ?? ["ON_DEMAND"]).includes("ON_DEMAND") && model.modelLifecycle?.status !== "LEGACY")
    .map((model) => model.modelId);
  // Listing profiles takes its own permission; without it the foundation models still help.
  const profiles = await getJson(context, { path: INFERENCE_PROFILES_PATH, query: "maxResults=1000&typeEquals=SYSTEM_DEFINED" }, {}, parseOtherError)
    .then((json) => inferenceProfilesSchema.parse(json).inferenceProfileSummaries ?? [])
    .catch(() => []);
  return [...onDemand, ...profiles.filter((profile) => profile.status !== "DISABLED").map((profile) => profile.inferenceProfileId)];
}
