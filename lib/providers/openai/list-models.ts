import { z } from "zod";
import { getJson } from "@/lib/providers/post-json";
import type { ListContext } from "@/lib/providers/provider";
import { parseOpenAIError } from "./parse-error";

const modelListSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) });

/** GET /models: every id the OpenAI-compatible upstream offers. */
export async function listOpenAIModels(context: ListContext): Promise<string[]> {
  const json = modelListSchema.parse(await getJson(context, { path: "/models" }, {}, parseOpenAIError));
  return json.data.map((model) => model.id);
}
