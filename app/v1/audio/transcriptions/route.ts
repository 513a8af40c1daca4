import { handleTranscriptions } from "@/lib/gateway/handlers/openai-operations";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const POST = toRouteHandler(handleTranscriptions);
