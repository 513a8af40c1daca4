import { updateUser } from "@/lib/admin/users";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const PATCH = toRouteHandler(updateUser);
