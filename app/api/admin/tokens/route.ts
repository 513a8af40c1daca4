import { createToken, listTokens } from "@/lib/admin/tokens";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(listTokens);
export const POST = toRouteHandler(createToken);
