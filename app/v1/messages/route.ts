import { handleMessages } from "@/lib/gateway/handlers/messages";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = toRouteHandler(handleMessages);
