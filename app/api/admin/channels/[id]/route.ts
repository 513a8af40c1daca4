import { deleteChannel, getChannel, updateChannel } from "@/lib/admin/channels";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(getChannel);
export const PATCH = toRouteHandler(updateChannel);
export const DELETE = toRouteHandler(deleteChannel);
