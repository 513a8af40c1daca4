import { z } from "zod";
import { getJson } from "@/lib/providers/post-json";
import type { ListContext } from "@/lib/providers/provider";
import { DEFAULT_ANTHROPIC_VERSION } from "./call-upstream";
import { parseAnthropicError } from "./parse-error";

const modelListSchema = z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) });

/** GET /models (one page of up to 1000): the model ids the key can use. */
export async function listAnthropicModels(context: ListContext): Promise<string[]> {
  const headers = { "anthropic-version": DEFAULT_ANTHROPIC_VERSION };
  const json = modelListSchema.parse(await getJson(context, { path: "/models", query: "limit=1000" }, headers, parseAnthropicError));
  return json.data.map((model) => model.id);
}
