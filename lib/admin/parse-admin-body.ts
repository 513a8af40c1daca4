import type { z } from "zod";
import { validationError } from "@/lib/formats/validation-error";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import type { ApiRequest } from "@/lib/http/api-types";

export async function parseAdminBody<Schema extends z.ZodType>(request: ApiRequest, schema: Schema): Promise<z.infer<Schema>> {
  const result = schema.safeParse(await readJsonBody(request));
  if (!result.success) throw validationError(result.error);
  return result.data;
}
