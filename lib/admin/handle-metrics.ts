import type { Runtime } from "@/lib/runtime";
import { bearerToken } from "@/lib/canonical/bearer-token";
import { renderAdminError } from "@/lib/admin/admin-error";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { sameSecret } from "@/lib/crypto/same-secret";
import { env } from "@/lib/env";
import type { ApiHandler } from "@/lib/canonical/api-types";

/** GET /metrics: Prometheus text, for `Authorization: Bearer $METRICS_TOKEN` (or the admin key). */
export const handleMetrics: ApiHandler<Runtime> = async (request, runtime) => {
  const presented = bearerToken(request.headers.get("authorization"));
  const allowed = presented !== null && (sameSecret(presented, runtime.secrets.adminApiKey) || (env.METRICS_TOKEN !== undefined && sameSecret(presented, env.METRICS_TOKEN)));
  if (!allowed) {
    return renderAdminError(new GatewayError("authentication", "Metrics require `Authorization: Bearer <METRICS_TOKEN>` (or the admin API key).", { code: "invalid_api_key" }));
  }
  return { status: 200, headers: { "content-type": runtime.metrics.registry.contentType }, body: await runtime.metrics.render() };
};
