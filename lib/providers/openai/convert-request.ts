import type { ChatRequest, ContentPart, Message, ToolChoice } from "@/lib/canonical/request";

// Canonical request -> OpenAI Chat Completions body.

export function toOpenAIChatBody(request: ChatRequest, upstreamModel: string, warnings: string[]): Record<string, unknown> {
  const messages: Record<string, unknown>[] = [];
  if (request.system) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(...toOpenAIMessages(message));
  const body: Record<string, unknown> = { model: upstreamModel, messages, stream: request.stream };
  if (request.stream) body.stream_options = { include_usage: true };
  if (request.maxTokens !== undefined) {
    // Reasoning models reject the older max_tokens name.
    body[request.reasoning ? "max_completion_tokens" : "max_tokens"] = request.maxTokens;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) warnings.push("top_k is not supported by OpenAI-compatible upstreams and was dropped");
  if (request.stop?.length) {
    if (request.stop.length > 4) warnings.push(`stop truncated from ${request.stop.length} to 4 sequences`);
    body.stop = request.stop.slice(0, 4);
  }
  if (request.tools?.length) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        parameters: tool.parameters ?? { type: "object", properties: {} },
      },
    }));
  }
  if (request.toolChoice) body.tool_choice = toOpenAIToolChoice(request.toolChoice);
  if (request.parallelToolCalls !== undefined && request.tools?.length) body.parallel_tool_calls = request.parallelToolCalls;
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  else if (request.reasoning?.budgetTokens !== undefined) body.reasoning_effort = effortForBudget(request.reasoning.budgetTokens);
  if (request.user) body.user = request.user;
  if (request.responseFormat) {
    const { name, schema } = request.responseFormat;
    body.response_format = schema ? { type: "json_schema", json_schema: { name: name ?? "response", schema } } : { type: "json_object" };
  }
  return body;
}

// The common convention (LiteLLM, new-api): under 2048 low, under 8192 medium, else high.
function effortForBudget(budget: number): "low" | "medium" | "high" {
  if (budget < 2048) return "low";
  if (budget < 8192) return "medium";
  return "high";
}

function toOpenAIToolChoice(choice: ToolChoice): unknown {
  if (choice.type === "tool") return { type: "function", function: { name: choice.name } };
  // Hosted tools never reach chat completions (lib/providers/members/hosted-tools.ts).
  if (choice.type === "hosted") return "auto";
  return choice.type;
}

function toOpenAIMessages(message: Message): Record<string, unknown>[] {
  if (message.role === "tool") {
    return message.content
      .filter((part): part is Extract<ContentPart, { type: "tool-result" }> => part.type === "tool-result")
      .map((part) => ({ role: "tool", tool_call_id: part.toolCallId, content: part.content }));
  }
  if (message.role === "assistant") {
    const text = message.content
      .filter((part) => part.type === "text")
      .map((part) => (part as { text: string }).text)
      .join("");
    const toolCalls = message.content
      .filter((part): part is Extract<ContentPart, { type: "tool-call" }> => part.type === "tool-call")
      .map((part) => ({ id: part.id, type: "function", function: { name: part.name, arguments: part.arguments } }));
    const result: Record<string, unknown> = { role: "assistant", content: text === "" && toolCalls.length ? null : text };
    if (toolCalls.length) result.tool_calls = toolCalls;
    if (message.name) result.name = message.name;
    return [result];
  }
  // A user turn may carry tool results (Anthropic/Gemini style): those become tool messages first.
  const results = message.content.filter((part) => part.type === "tool-result");
  const rest = message.content.filter((part) => part.type !== "tool-result");
  const output: Record<string, unknown>[] = results.map((part) => {
    const result = part as Extract<ContentPart, { type: "tool-result" }>;
    return { role: "tool", tool_call_id: result.toolCallId, content: result.content };
  });
  if (rest.length > 0) {
    const onlyText = rest.every((part) => part.type === "text");
    const content = onlyText
      ? rest.map((part) => (part as { text: string }).text).join("")
      : rest.flatMap((part): Record<string, unknown>[] => {
          if (part.type === "text") return [{ type: "text", text: part.text }];
          if (part.type === "image") {
            const url = part.source.kind === "url" ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
            return [{ type: "image_url", image_url: { url } }];
          }
          return [];
        });
    const user: Record<string, unknown> = { role: "user", content };
    if (message.name) user.name = message.name;
    output.push(user);
  }
  return output;
}
