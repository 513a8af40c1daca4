import * as channels from "@/lib/admin/channels";
import { handleHealth } from "@/lib/admin/health";
import { listLogs } from "@/lib/admin/logs";
import * as tokens from "@/lib/admin/tokens";
import * as users from "@/lib/admin/users";
import { geminiFormat } from "@/lib/formats/gemini";
import { openAIFormat } from "@/lib/formats/openai";
import { handleChatCompletions } from "@/lib/gateway/handlers/chat-completions";
import { handleCountTokens } from "@/lib/gateway/handlers/count-tokens";
import { handleGeminiAction, handleGeminiGetModel, handleGeminiListModels } from "@/lib/gateway/handlers/gemini";
import { handleMessages } from "@/lib/gateway/handlers/messages";
import { handleListModels } from "@/lib/gateway/handlers/models";
import { handleDeleteResponse, handleGetResponse, handleResponseInputItems, handleResponses } from "@/lib/gateway/handlers/responses";
import {
  handleCompletions,
  handleEmbeddings,
  handleImageEdits,
  handleImageGenerations,
  handleRerank,
  handleSpeech,
  handleTranscriptions,
} from "@/lib/gateway/handlers/openai-operations";
import { notFoundHandler } from "@/lib/gateway/with-api-key";
import { handleOpenApi } from "@/lib/openapi/handle-openapi";
import { RouteTable, type RouteMatch } from "./route-table";

// Every API route, for the fast path in server.ts. The app/ route files export the
// same handlers for Next's router.
export const apiRoutes = new RouteTable()
  .add("POST", "/v1/chat/completions", handleChatCompletions)
  .add("POST", "/v1/responses", handleResponses)
  .add("GET", "/v1/responses/:id", handleGetResponse)
  .add("DELETE", "/v1/responses/:id", handleDeleteResponse)
  .add("GET", "/v1/responses/:id/input_items", handleResponseInputItems)
  .add("POST", "/v1/completions", handleCompletions)
  .add("POST", "/v1/embeddings", handleEmbeddings)
  .add("POST", "/v1/images/generations", handleImageGenerations)
  .add("POST", "/v1/images/edits", handleImageEdits)
  .add("POST", "/v1/audio/speech", handleSpeech)
  .add("POST", "/v1/audio/transcriptions", handleTranscriptions)
  .add("POST", "/v1/rerank", handleRerank)
  .add("GET", "/v1/models", handleListModels)
  .add("POST", "/v1/messages", handleMessages)
  .add("POST", "/v1/messages/count_tokens", handleCountTokens)
  .add("GET", "/v1beta/models", handleGeminiListModels)
  .add("GET", "/v1beta/models/*path", handleGeminiGetModel)
  .add("POST", "/v1beta/models/*path", handleGeminiAction)
  .add("GET", "/api/health", handleHealth)
  .add("GET", "/openapi.json", handleOpenApi)
  .add("GET", "/api/admin/channels", channels.listChannels)
  .add("POST", "/api/admin/channels", channels.createChannel)
  .add("GET", "/api/admin/channels/:id", channels.getChannel)
  .add("PATCH", "/api/admin/channels/:id", channels.updateChannel)
  .add("DELETE", "/api/admin/channels/:id", channels.deleteChannel)
  .add("GET", "/api/admin/tokens", tokens.listTokens)
  .add("POST", "/api/admin/tokens", tokens.createToken)
  .add("GET", "/api/admin/tokens/:id", tokens.getToken)
  .add("PATCH", "/api/admin/tokens/:id", tokens.updateToken)
  .add("DELETE", "/api/admin/tokens/:id", tokens.deleteToken)
  .add("GET", "/api/admin/users", users.listUsers)
  .add("PATCH", "/api/admin/users/:id", users.updateUser)
  .add("GET", "/api/admin/logs", listLogs);

const unknownApiRoute = notFoundHandler(openAIFormat, "unknown");
const unknownGeminiRoute = notFoundHandler(geminiFormat, "unknown");

/** The handler for an API path, or undefined for paths Next should serve (console pages). */
export function matchApiRoute(method: string, pathname: string): RouteMatch | undefined {
  const match = apiRoutes.match(method, pathname);
  if (match) return match;
  if (pathname.startsWith("/v1/")) return { handler: unknownApiRoute, params: {} };
  if (pathname.startsWith("/v1beta/")) return { handler: unknownGeminiRoute, params: {} };
  return undefined;
}
