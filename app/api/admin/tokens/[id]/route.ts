import { deleteToken, getToken, updateToken } from "@/lib/admin/tokens";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(getToken);
export const PATCH = toRouteHandler(updateToken);
export const DELETE = toRouteHandler(deleteToken);
