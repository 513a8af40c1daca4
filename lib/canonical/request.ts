// The canonical chat request: what every client format parses into and every
// provider converts from.

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image"; source: ImageSource }
  | { type: "tool-call"; id: string; name: string; arguments: string }
  | { type: "tool-result"; toolCallId: string; content: string; isError?: boolean }
  | { type: "reasoning"; text: string; signature?: string };

export type ImageSource = { kind: "url"; url: string } | { kind: "base64"; mediaType: string; data: string };

export interface Message {
  role: "user" | "assistant" | "tool";
  content: ContentPart[];
  name?: string;
}

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters?: Record<string, unknown>;
}

/**
 * A tool the model vendor's own service runs (a web search, a code sandbox), not the
 * client. Each provider maps the kinds its upstream has an equivalent for; the others are
 * dropped with a warning (lib/providers/members/hosted-tools.ts).
 */
export type HostedToolKind = "web-search" | "file-search" | "code-interpreter" | "image-generation" | "computer-use" | "mcp" | "other";

export interface HostedTool {
  kind: HostedToolKind;
  /** How the client named it: its type (`web_search`), or an MCP server's label. */
  name: string;
  /** The client's settings for it, as sent (`user_location`, `filters`...). */
  options: Record<string, unknown>;
}

export type ToolChoice = { type: "auto" } | { type: "none" } | { type: "required" } | { type: "tool"; name: string } | { type: "hosted"; kind: HostedToolKind; name: string };

export interface ChatRequest {
  /** The public model name the caller asked for. */
  model: string;
  system?: string;
  messages: Message[];
  stream: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  tools?: ToolDefinition[];
  hostedTools?: HostedTool[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  reasoning?: { effort?: "minimal" | "low" | "medium" | "high"; budgetTokens?: number };
  /** Structured output: JSON, optionally matching a JSON Schema. */
  responseFormat?: { type: "json"; name?: string; schema?: Record<string, unknown> };
  user?: string;
}

/** Concatenated text of a message, for tokenizer-based usage estimates. */
export function messageText(message: Message): string {
  return message.content
    .map((part) => {
      switch (part.type) {
        case "text":
        case "reasoning":
          return part.text;
        case "tool-call":
          return `${part.name}${part.arguments}`;
        case "tool-result":
          return part.content;
        default:
          return "";
      }
    })
    .join("\n");
}
