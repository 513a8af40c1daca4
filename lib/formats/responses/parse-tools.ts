import { GatewayError } from "@/lib/canonical/gateway-error";
import type { HostedTool, HostedToolKind, ToolChoice, ToolDefinition } from "@/lib/canonical/request";
import type { ResponsesRequest, ResponsesTool } from "./schema";
import { flatToolName, upstreamToolName, type DeclaredTool } from "./tool-names";

// Responses tools as canonical ones: function and custom tools (also inside a namespace)
// become function declarations; tools OpenAI's own service runs become hosted tools,
// which each provider maps or drops.

/** A custom (freeform) tool becomes a function taking its text as one string argument. */
export const CUSTOM_TOOL_ARGUMENT = "input";

export interface CanonicalTools {
  tools: ToolDefinition[];
  hostedTools: HostedTool[];
  table: Map<string, DeclaredTool>;
}

type ClientTool = { type: string; name?: string; description?: string | null; parameters?: Record<string, unknown> | null; format?: unknown };

export function toCanonicalTools(declared: ResponsesTool[] | undefined): CanonicalTools {
  const result: CanonicalTools = { tools: [], hostedTools: [], table: new Map() };
  for (const [index, tool] of (declared ?? []).entries()) {
    if (tool.type === "namespace") {
      const group = tool as { name: string; description?: string | null; tools: ClientTool[] };
      for (const [inner, member] of group.tools.entries()) {
        const upstreamName = flatToolName(group.name, member.name!);
        const description = [group.description, member.description].filter(Boolean).join("\n\n");
        addClientTool(result, { ...member, description }, upstreamName, `tools[${index}].tools[${inner}]`, group.name);
      }
      continue;
    }
    if (tool.type === "function" || tool.type === "custom") {
      addClientTool(result, tool as ClientTool, (tool as { name: string }).name, `tools[${index}]`);
      continue;
    }
    result.hostedTools.push(hostedTool(tool));
  }
  return result;
}

function addClientTool(result: CanonicalTools, tool: ClientTool, upstreamName: string, param: string, namespace?: string): void {
  const custom = tool.type === "custom";
  if (result.table.has(upstreamName)) {
    throw new GatewayError("invalid_request", `Two tools share the name '${upstreamName}'.`, { param: `${param}.name`, code: "duplicate_tool_name" });
  }
  result.table.set(upstreamName, { name: tool.name!, namespace, custom });
  result.tools.push(
    custom
      ? customToolFunction(upstreamName, tool)
      : { name: upstreamName, description: tool.description ?? undefined, parameters: tool.parameters ?? { type: "object", properties: {} } },
  );
}

function customToolFunction(name: string, tool: ClientTool): ToolDefinition {
  const format = tool.format as { type?: string; syntax?: string; definition?: string } | undefined;
  const grammar = format?.type === "grammar" ? `\n\nThe input must follow this ${format.syntax ?? ""} grammar:\n${format.definition ?? ""}` : "";
  return {
    name,
    description: `${tool.description ?? ""}${grammar}`.trim() || undefined,
    parameters: {
      type: "object",
      properties: { [CUSTOM_TOOL_ARGUMENT]: { type: "string", description: "The tool's whole input, as free text." } },
      required: [CUSTOM_TOOL_ARGUMENT],
    },
  };
}

const HOSTED_KINDS: [RegExp, HostedToolKind][] = [
  [/^web_search/, "web-search"],
  [/^file_search$/, "file-search"],
  [/^code_interpreter$/, "code-interpreter"],
  [/^image_generation$/, "image-generation"],
  [/^computer_use/, "computer-use"],
  [/^mcp$/, "mcp"],
];

export function hostedKind(type: string): HostedToolKind {
  return HOSTED_KINDS.find(([pattern]) => pattern.test(type))?.[1] ?? "other";
}

function hostedTool(tool: ResponsesTool): HostedTool {
  const { type, ...options } = tool as { type: string } & Record<string, unknown>;
  const kind = hostedKind(type);
  // An MCP server is known by its label; every other hosted tool by its type.
  const name = kind === "mcp" && typeof options.server_label === "string" ? `mcp:${options.server_label}` : type;
  return { kind, name, options };
}

export function toCanonicalToolChoice(choice: ResponsesRequest["tool_choice"]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (choice === "auto" || choice === "none" || choice === "required") return { type: choice };
  if ((choice.type === "function" || choice.type === "custom") && "name" in choice) {
    return { type: "tool", name: upstreamToolName(String(choice.name), (choice as { namespace?: string | null }).namespace) };
  }
  if (choice.type === "allowed_tools") return { type: (choice as { mode?: string }).mode === "required" ? "required" : "auto" };
  const kind = hostedKind(choice.type);
  const label = (choice as { server_label?: unknown }).server_label;
  return { type: "hosted", kind, name: kind === "mcp" && typeof label === "string" ? `mcp:${label}` : choice.type };
}
