import { handleCountTokens } from "@/lib/gateway/handlers/count-tokens";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = toRouteHandler(handleCountTokens);
