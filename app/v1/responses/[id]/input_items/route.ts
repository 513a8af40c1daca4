import { handleResponseInputItems } from "@/lib/gateway/handlers/responses";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(handleResponseInputItems);
