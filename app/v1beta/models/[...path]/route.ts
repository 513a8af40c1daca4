import { handleGeminiAction, handleGeminiGetModel } from "@/lib/gateway/handlers/gemini";
import { toRouteHandler } from "@/lib/http/web-adapter";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = toRouteHandler(handleGeminiGetModel);
export const POST = toRouteHandler(handleGeminiAction);
