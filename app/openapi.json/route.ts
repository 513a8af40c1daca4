import { toRouteHandler } from "@/lib/http/web-adapter";
import { handleOpenApi } from "@/lib/openapi/handle-openapi";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(handleOpenApi);
