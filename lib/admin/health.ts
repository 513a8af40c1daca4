import type { ApiHandler } from "@/lib/canonical/api-types";
import { jsonResponse } from "@/lib/canonical/api-types";
import { getRuntime } from "@/lib/runtime";

/** GET /api/health: ok once the database is migrated and channels are loaded. */
export const handleHealth: ApiHandler = async () => {
  await getRuntime();
  return jsonResponse(200, { status: "ok" });
};
