import { GatewayError } from "@/lib/canonical/gateway-error";
import type { z } from "zod";
import { validationError } from "@/lib/formats/validation-error";
import { readJsonBody } from "@/lib/gateway/read-json-body";
import type { ApiRequest } from "@/lib/canonical/api-types";

/** A JSON body, sent as JSON: a form or `text/plain` post (what a cross-site page can send) is refused. */
export async function parseAdminBody<Schema extends z.ZodType>(request: ApiRequest, schema: Schema): Promise<z.infer<Schema>> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new GatewayError("unsupported_media_type", "The admin API takes JSON bodies: send Content-Type: application/json.", {
      code: "unsupported_media_type",
    });
  }
  const result = schema.safeParse(await readJsonBody(request));
  if (!result.success) throw validationError(result.error);
  return result.data;
}
