import { z } from "zod";
import { getJson } from "@/lib/providers/post-json";
import type { ListContext } from "@/lib/providers/provider";
import { parseGeminiError } from "./parse-error";

const modelListSchema = z.looseObject({
  models: z.array(z.looseObject({ name: z.string(), supportedGenerationMethods: z.array(z.string()).optional() })).optional(),
});

/** GET /models (one page of up to 1000): names without the `models/` prefix, the way clients write them. */
export async function listGeminiModels(context: ListContext): Promise<string[]> {
  const json = modelListSchema.parse(await getJson(context, { path: "/models", query: "pageSize=1000" }, {}, parseGeminiError));
  return (json.models ?? []).map((model) => model.name.replace(/^models\//, ""));
}
