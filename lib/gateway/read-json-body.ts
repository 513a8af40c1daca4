import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiRequest } from "@/lib/http/api-types";

export async function readJsonBody(request: ApiRequest): Promise<unknown> {
  const body = await request.body(env.MAX_BODY_BYTES);
  if (body.length === 0) {
    throw new GatewayError("invalid_request", "The request body is empty; a JSON object is required.", { code: "invalid_json" });
  }
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new GatewayError("invalid_request", "We could not parse the JSON body of your request: it is not valid JSON.", {
      code: "invalid_json",
    });
  }
}
