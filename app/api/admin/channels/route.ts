import { createChannel, listChannels } from "@/lib/admin/channels";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(listChannels);
export const POST = toRouteHandler(createChannel);
