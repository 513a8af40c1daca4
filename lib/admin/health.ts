import type { Runtime } from "@/lib/runtime";
import type { ApiHandler } from "@/lib/canonical/api-types";
import { jsonResponse } from "@/lib/canonical/api-types";

/** GET /api/health: ok once the database is migrated and channels are loaded (the runtime handed in is built by then). */
export const handleHealth: ApiHandler<Runtime> = async () => jsonResponse(200, { status: "ok" });
