import { GatewayError } from "@/lib/canonical/gateway-error";
import { chatWith } from "@/lib/canonical/deferred-chat";
import type { ChatRequest, HostedTool, HostedToolKind } from "@/lib/canonical/request";
import type { ApiResponse } from "@/lib/canonical/api-types";

// Tools a vendor's own service runs (web search, file search, code sandboxes, MCP) reach
// an upstream only where it has an equivalent: each provider says which kinds it maps
// (Anthropic and Gemini: web search). The others are dropped from the upstream request,
// with a warning in the log row and in the `x-gateway-warning` response header, and the
// request goes on; a tool_choice that forces a dropped tool is the caller's 400.

/** Whether this upstream runs the tool for this request: true, or why it is dropped. */
export type HostedToolSupport = (tool: HostedTool, request: ChatRequest) => true | string;

const NO_EQUIVALENT = "this model's provider has no equivalent";

export const NO_HOSTED_TOOLS: HostedToolSupport = () => NO_EQUIVALENT;

/** Support for the given kinds, whatever else the request holds. */
export const hostedKinds =
  (...kinds: HostedToolKind[]): HostedToolSupport =>
  (tool) =>
    kinds.includes(tool.kind) || NO_EQUIVALENT;

export const WARNING_HEADER = "x-gateway-warning";

export interface HostedToolsKept {
  request: ChatRequest;
  /** The names of the tools left out, as the client named them. */
  dropped: string[];
}

export function keepHostedTools(request: ChatRequest, supported: HostedToolSupport, warnings: string[]): HostedToolsKept {
  const hosted = request.hostedTools ?? [];
  const kept: HostedTool[] = [];
  const dropped: HostedTool[] = [];
  for (const tool of hosted) {
    const verdict = supported(tool, request);
    if (verdict === true) kept.push(tool);
    else {
      dropped.push(tool);
      warnings.push(`tool '${tool.name}' dropped: ${verdict}`);
    }
  }
  const choice = request.toolChoice;
  if (choice?.type === "hosted" && !kept.some((tool) => tool.kind === choice.kind && (choice.kind !== "mcp" || tool.name === choice.name))) {
    throw new GatewayError("invalid_request", `tool_choice forces the tool '${choice.name}', which this model's provider cannot run here; declare it as a function tool instead.`, {
      param: "tool_choice",
      code: "unsupported_tool",
    });
  }
  if (dropped.length === 0) return { request, dropped: [] };
  return { request: chatWith(request, { hostedTools: kept.length > 0 ? kept : undefined }), dropped: dropped.map((tool) => tool.name) };
}

/** The response with a header naming the dropped tools (printable ASCII only, as headers must be). */
export function withDroppedToolsHeader(response: ApiResponse, dropped: string[]): ApiResponse {
  if (dropped.length === 0) return response;
  const names = dropped.map((name) => name.replace(/[^\x20-\x7e]/g, "?")).join(", ");
  return { ...response, headers: { ...response.headers, [WARNING_HEADER]: `dropped tools with no equivalent on this upstream: ${names}` } };
}
