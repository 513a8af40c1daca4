// The canonical chat request: what every client format parses into and every
// provider converts from.

export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image"; source: ImageSource }
  | { type: "tool-call"; id: string; name: string; arguments: string }
  | { type: "tool-result"; toolCallId: string; content: string; isError?: boolean }
  | { type: "reasoning"; text: string; signature?: string };

export type ImageSource =
  | { kind: "url"; url: string }
  | { kind: "base64"; mediaType: string; data: string };

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

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

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
