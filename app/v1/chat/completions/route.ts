import { handleChatCompletions } from "@/lib/gateway/handlers/chat-completions";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = toRouteHandler(handleChatCompletions);
