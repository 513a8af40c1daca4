import type { Runtime } from "@/lib/runtime";
import { renderAdminError } from "@/lib/admin/admin-error";
import * as channels from "@/lib/admin/channels";
import { handleHealth } from "@/lib/admin/health";
import { listLogs } from "@/lib/admin/logs";
import * as mcpServers from "@/lib/admin/mcp-servers";
import * as models from "@/lib/admin/models";
import * as teamRoutes from "@/lib/admin/team-routes";
import * as teams from "@/lib/admin/teams";
import * as tokens from "@/lib/admin/tokens";
import * as users from "@/lib/admin/users";
import * as webhooks from "@/lib/admin/webhooks";
import { listAudit } from "@/lib/admin/audit";
import { adminUsage } from "@/lib/admin/usage";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { anthropicFormat } from "@/lib/formats/anthropic";
import { geminiFormat } from "@/lib/formats/gemini";
import { openAIFormat } from "@/lib/formats/openai";
import { handleChatCompletions } from "@/lib/gateway/handlers/chat-completions";
import { handleCountTokens } from "@/lib/gateway/handlers/count-tokens";
import { handleGeminiAction, handleGeminiGetModel, handleGeminiListModels } from "@/lib/gateway/handlers/gemini";
import { handleMessages } from "@/lib/gateway/handlers/messages";
import { handleCompact, handleInputTokens } from "@/lib/gateway/handlers/responses-compact";
import { handleGetModel, handleListModels } from "@/lib/gateway/handlers/models";
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
import type { ClientFormat } from "@/lib/gateway/client-format";
import { refuseHandler } from "@/lib/gateway/with-api-key";
import { handleMetrics } from "@/lib/admin/handle-metrics";
import { handleOpenApi } from "@/lib/openapi/handle-openapi";
import { handleMcpDelete, handleMcpGet, handleMcpPost } from "@/lib/mcp/handle-mcp";
import { handleOwnUsage } from "@/lib/console/own-usage";
import type { ApiHandler } from "@/lib/canonical/api-types";
import { handlePreflight } from "./cors";
import { doubledVersionRefusal } from "./doubled-version";
import { RouteTable, type RouteLookup, type RouteMatch } from "./route-table";
import { isConsoleWrite, unknownPathMessage, WRITE_METHODS } from "./stray-writes";

// Every API route, for the fast path in server.ts. The app/ route files export the
// same handlers for Next's router.
export const apiRoutes = new RouteTable()
  .add("POST", "/v1/chat/completions", handleChatCompletions)
  .add("POST", "/v1/responses", handleResponses)
  .add("POST", "/v1/responses/compact", handleCompact)
  .add("POST", "/v1/responses/input_tokens", handleInputTokens)
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
  .add("GET", "/v1/models/*path", handleGetModel)
  // Gemini's methods under /v1 as under /v1beta (@google/genai 3 calls /v1).
  .add("POST", "/v1/models/*path", handleGeminiAction)
  .add("POST", "/v1/messages", handleMessages)
  .add("POST", "/v1/messages/count_tokens", handleCountTokens)
  .add("GET", "/v1beta/models", handleGeminiListModels)
  .add("GET", "/v1beta/models/*path", handleGeminiGetModel)
  .add("POST", "/v1beta/models/*path", handleGeminiAction)
  .add("GET", "/api/health", handleHealth)
  .add("GET", "/openapi.json", handleOpenApi)
  .add("GET", "/metrics", handleMetrics)
  .add("GET", "/api/admin/channels", channels.listChannels)
  .add("POST", "/api/admin/channels", channels.createChannel)
  .add("GET", "/api/admin/channels/:id", channels.getChannel)
  .add("PATCH", "/api/admin/channels/:id", channels.updateChannel)
  .add("DELETE", "/api/admin/channels/:id", channels.deleteChannel)
  .add("GET", "/api/admin/models", models.listModels)
  .add("POST", "/api/admin/models", models.createModel)
  .add("GET", "/api/admin/models/:id", models.getModel)
  .add("PATCH", "/api/admin/models/:id", models.updateModel)
  .add("DELETE", "/api/admin/models/:id", models.deleteModel)
  .add("GET", "/api/admin/tokens", tokens.listTokens)
  .add("POST", "/api/admin/tokens", tokens.createToken)
  .add("GET", "/api/admin/tokens/:id", tokens.getToken)
  .add("PATCH", "/api/admin/tokens/:id", tokens.updateToken)
  .add("DELETE", "/api/admin/tokens/:id", tokens.deleteToken)
  .add("GET", "/api/admin/tokens/:id/end-users", teams.listEndUsers)
  .add("GET", "/api/admin/teams", teams.listTeams)
  .add("POST", "/api/admin/teams", teams.createTeam)
  .add("GET", "/api/admin/teams/:id", teams.getTeam)
  .add("PATCH", "/api/admin/teams/:id", teams.updateTeam)
  .add("DELETE", "/api/admin/teams/:id", teams.deleteTeam)
  .add("POST", "/api/admin/teams/:id/members", teams.addMember)
  .add("PATCH", "/api/admin/teams/:id/members/:userId", teams.updateMember)
  .add("DELETE", "/api/admin/teams/:id/members/:userId", teams.removeMember)
  .add("GET", "/api/teams", teamRoutes.listMyTeams)
  .add("GET", "/api/teams/:id", teamRoutes.getMyTeam)
  .add("PATCH", "/api/teams/:id", teamRoutes.updateMyTeam)
  .add("POST", "/api/teams/:id/tokens", teamRoutes.createTeamToken)
  .add("PATCH", "/api/teams/:id/tokens/:tokenId", teamRoutes.updateTeamToken)
  .add("DELETE", "/api/teams/:id/tokens/:tokenId", teamRoutes.deleteTeamToken)
  .add("POST", "/api/teams/:id/members", teamRoutes.addTeamMember)
  .add("PATCH", "/api/teams/:id/members/:userId", teamRoutes.updateTeamMember)
  .add("DELETE", "/api/teams/:id/members/:userId", teamRoutes.removeTeamMember)
  .add("GET", "/api/admin/audit", listAudit)
  .add("GET", "/api/admin/webhooks", webhooks.listWebhooks)
  .add("POST", "/api/admin/webhooks", webhooks.createWebhook)
  .add("GET", "/api/admin/webhooks/:id", webhooks.getWebhook)
  .add("PATCH", "/api/admin/webhooks/:id", webhooks.updateWebhook)
  .add("DELETE", "/api/admin/webhooks/:id", webhooks.deleteWebhook)
  .add("POST", "/api/admin/webhooks/:id/test", webhooks.testWebhook)
  .add("GET", "/api/admin/users", users.listUsers)
  .add("POST", "/api/admin/users", users.createUser)
  .add("GET", "/api/admin/users/:id", users.getUser)
  .add("PATCH", "/api/admin/users/:id", users.updateUser)
  .add("DELETE", "/api/admin/users/:id", users.deleteUser)
  .add("GET", "/api/admin/logs", listLogs)
  .add("GET", "/api/admin/usage", adminUsage)
  .add("GET", "/api/usage", handleOwnUsage)
  // MCP gateway (issue 35): the aggregate endpoint and one per server.
  .add("POST", "/mcp", handleMcpPost)
  .add("GET", "/mcp", handleMcpGet)
  .add("DELETE", "/mcp", handleMcpDelete)
  .add("POST", "/mcp/:server", handleMcpPost)
  .add("GET", "/mcp/:server", handleMcpGet)
  .add("DELETE", "/mcp/:server", handleMcpDelete)
  .add("GET", "/api/admin/mcp-servers", mcpServers.listMcpServers)
  .add("POST", "/api/admin/mcp-servers", mcpServers.createMcpServer)
  .add("GET", "/api/admin/mcp-servers/:id", mcpServers.getMcpServer)
  .add("PATCH", "/api/admin/mcp-servers/:id", mcpServers.updateMcpServer)
  .add("DELETE", "/api/admin/mcp-servers/:id", mcpServers.deleteMcpServer)
  .add("GET", "/api/admin/mcp-servers/:id/tools", mcpServers.listMcpServerTools);

/** Which API a path belongs to, so every refusal answers in that API's own error shape. */
function formatForPath(pathname: string, method: string): ClientFormat | undefined {
  if (pathname === "/v1/messages" || pathname.startsWith("/v1/messages/")) return anthropicFormat;
  if (pathname === "/v1beta" || pathname.startsWith("/v1beta/")) return geminiFormat;
  // Only Gemini's methods are posted there (`/v1/models/{model}:generateContent`).
  if (pathname.startsWith("/v1/models/") && (pathname.includes(":") || method === "POST")) return geminiFormat;
  if (pathname === "/v1" || pathname.startsWith("/v1/")) return openAIFormat;
  return undefined;
}

const isAdminPath = (pathname: string) => pathname === "/api/admin" || pathname.startsWith("/api/admin/");

const unknownPath = (method: string) => new GatewayError("not_found", unknownPathMessage(method), { code: "unknown_url" });

/**
 * The handler for an API path: a route's own, or a refusal in the path's API format
 * (404 unknown path, 405 with `Allow`, 400 malformed encoding); undefined for paths Next
 * serves (console pages).
 */
export function matchApiRoute(method: string, pathname: string): RouteMatch | undefined {
  const format = formatForPath(pathname, method);
  if (method === "OPTIONS" && format) return { handler: handlePreflight, params: {} };
  let lookup: RouteLookup;
  try {
    lookup = apiRoutes.lookup(method, pathname);
  } catch (error) {
    return refusal(format, error as GatewayError);
  }
  if (lookup.kind === "found") return lookup.match;
  if (lookup.kind === "method-not-allowed") {
    const allow = lookup.allowed.join(", ");
    const error = new GatewayError("method_not_allowed", `This path accepts ${allow}, not ${method}.`, { code: "method_not_allowed" });
    return refusal(format, error, { allow });
  }
  const doubled = doubledVersionRefusal(pathname);
  if (doubled) return { handler: doubled, params: {} };
  const mistake = missingPrefix(pathname);
  if (mistake) return refusal(mistake.format, new GatewayError("not_found", mistake.hint, { code: "missing_base_path" }));
  const spelling = apiRoutes.spelling(pathname);
  if (spelling) {
    const hint = `Paths are case-sensitive: this endpoint is spelled ${spelling.template}.`;
    return refusal(formatForPath(spelling.path, method), new GatewayError("not_found", hint, { code: "unknown_url" }));
  }
  if (format || isAdminPath(pathname)) return refusal(format, unknownPath(method));
  // Writes nobody serves: a JSON 404 here, never a body for Next's server-action parser (stray-writes.ts).
  if (WRITE_METHODS.has(method) && !isConsoleWrite(method, pathname)) return refusal(undefined, unknownPath(method));
  return undefined;
}

// A client whose base URL lacks the version segment (`new OpenAI({ baseURL: "http://host" })`)
// calls these paths: it gets a JSON error in its own format saying what to set, not an HTML page.
const OPENAI_PATHS = new Set([
  "/chat/completions",
  "/completions",
  "/embeddings",
  "/responses",
  "/models",
  "/images/generations",
  "/images/edits",
  "/audio/speech",
  "/audio/transcriptions",
  "/rerank",
  "/realtime",
]);
const ANTHROPIC_PATHS = new Set(["/messages", "/messages/count_tokens"]);

function missingPrefix(pathname: string): { format: ClientFormat; hint: string } | undefined {
  const base = (api: string, prefix: string) =>
    `This gateway serves the ${api} API under ${prefix}: set your client's base URL to end in ${prefix}, so that this request goes to ${prefix}${pathname}.`;
  if (OPENAI_PATHS.has(pathname) || pathname.startsWith("/responses/")) return { format: openAIFormat, hint: base("OpenAI", "/v1") };
  if (ANTHROPIC_PATHS.has(pathname)) {
    return {
      format: anthropicFormat,
      hint: "This gateway serves the Anthropic API at /v1/messages: the Anthropic SDKs add /v1 themselves, so set the base URL to the gateway's root (without /v1).",
    };
  }
  if (pathname.startsWith("/models/") && pathname.includes(":")) return { format: geminiFormat, hint: base("Gemini", "/v1beta") };
  return undefined;
}

function refusal(format: ClientFormat | undefined, error: GatewayError, headers: Record<string, string> = {}): RouteMatch {
  const handler: ApiHandler<Runtime> = format
    ? refuseHandler(format, "unknown", error, headers)
    : async () => {
        const response = renderAdminError(error);
        Object.assign(response.headers, headers);
        return response;
      };
  return { handler, params: {} };
}
