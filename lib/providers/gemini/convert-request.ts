import type { ChatRequest, ContentPart, ToolChoice } from "@/lib/canonical/request";
import { safeClientJson, toolArgumentsObject } from "@/lib/canonical/json";
import type { HostedToolSupport } from "@/lib/providers/members/hosted-tools";
import type { AttemptContext } from "@/lib/providers/provider";
import { cleanGeminiSchema, isEmptyObjectSchema } from "./clean-schema";
import { fetchImage } from "./fetch-image";

// Canonical request -> Gemini generateContent body.

// Thinking models want the signature of their own function calls replayed; history
// from other models has none, and Google documents this placeholder for that case.
const PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator";
const EFFORT_BUDGET = { minimal: 512, low: 1024, medium: 8192, high: 24576 } as const;
const MAX_STOP_SEQUENCES = 5;

type Part = Record<string, unknown>;
type Content = { role: "user" | "model"; parts: Part[] };

export async function toGeminiBody(request: ChatRequest, context: AttemptContext): Promise<Record<string, unknown>> {
  const warnings = context.warnings;
  // functionResponse needs the function's name; results only carry the call id.
  const callNames = new Map<string, string>();
  for (const message of request.messages) {
    for (const part of message.content) if (part.type === "tool-call") callNames.set(part.id, part.name);
  }

  const contents: Content[] = [];
  const push = (role: Content["role"], parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const message of request.messages) {
    const role = message.role === "assistant" ? "model" : "user";
    const parts: Part[] = [];
    let signed = false;
    for (const part of message.content) {
      const converted = await toPart(part, callNames, context);
      if (!converted) continue;
      if (converted.functionCall && !signed) {
        converted.thoughtSignature = PLACEHOLDER_SIGNATURE;
        signed = true;
      }
      parts.push(converted);
    }
    push(role, parts);
  }

  const body: Record<string, unknown> = { contents };
  if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
  const tools: Record<string, unknown>[] = [];
  if (request.tools?.length) {
    tools.push({
      functionDeclarations: request.tools.map((tool) => ({
        name: tool.name,
        ...(tool.description ? { description: tool.description } : {}),
        ...(isEmptyObjectSchema(tool.parameters) ? {} : { parameters: cleanGeminiSchema(tool.parameters) }),
      })),
    });
    const config = toolConfig(request.toolChoice);
    if (config) body.toolConfig = { functionCallingConfig: config };
  }
  // One tool object per kind: Google Search is a tool of its own.
  if (request.hostedTools?.some((tool) => tool.kind === "web-search")) {
    tools.push({ googleSearch: {} });
    if (request.toolChoice?.type === "hosted") warnings.push("tool_choice forcing web search given as auto: Gemini decides itself when to search");
    if (request.hostedTools.some((tool) => (tool.options as { filters?: unknown }).filters)) warnings.push("web_search filters dropped: Google Search takes none");
  }
  if (tools.length) body.tools = tools;
  if (request.parallelToolCalls === false) warnings.push("parallel_tool_calls=false has no Gemini equivalent and was dropped");

  const generation: Record<string, unknown> = {};
  if (request.temperature !== undefined) generation.temperature = request.temperature;
  if (request.topP !== undefined) generation.topP = request.topP;
  if (request.topK !== undefined) generation.topK = request.topK;
  if (request.maxTokens !== undefined) generation.maxOutputTokens = request.maxTokens;
  if (request.stop?.length) {
    if (request.stop.length > MAX_STOP_SEQUENCES) warnings.push(`stop truncated to ${MAX_STOP_SEQUENCES} sequences for Gemini`);
    generation.stopSequences = request.stop.slice(0, MAX_STOP_SEQUENCES);
  }
  if (request.reasoning) {
    generation.thinkingConfig = {
      thinkingBudget: request.reasoning.budgetTokens ?? EFFORT_BUDGET[request.reasoning.effort ?? "medium"],
      includeThoughts: true,
    };
  }
  if (request.responseFormat) {
    generation.responseMimeType = "application/json";
    // Gemini takes a plain JSON Schema here, unlike the OpenAPI subset of responseSchema.
    if (request.responseFormat.schema) generation.responseJsonSchema = request.responseFormat.schema;
  }
  if (Object.keys(generation).length) body.generationConfig = generation;
  return body;
}

/**
 * Google Search maps a Responses web_search tool. Gemini refuses it beside function
 * declarations (Gemini 3 accepts both only when the server's own tool calls are replayed
 * turn after turn, which a Responses client cannot carry), so then it is dropped.
 */
export const geminiHostedTools: HostedToolSupport = (tool, request) => {
  if (tool.kind !== "web-search") return "this model's provider has no equivalent";
  return request.tools?.length ? "Gemini cannot search Google in a request that also declares function tools" : true;
};

function toolConfig(choice: ToolChoice | undefined): Record<string, unknown> | undefined {
  switch (choice?.type) {
    case undefined:
    case "hosted":
      return undefined;
    case "auto":
      return { mode: "AUTO" };
    case "none":
      return { mode: "NONE" };
    case "required":
      return { mode: "ANY" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}

async function toPart(part: ContentPart, callNames: Map<string, string>, context: AttemptContext): Promise<Part | undefined> {
  switch (part.type) {
    case "text":
      return part.text ? { text: part.text } : undefined;
    case "reasoning":
      // Thoughts are not replayed to Gemini; their signature rides on the call parts.
      return undefined;
    case "image":
      if (part.source.kind === "base64") return { inlineData: { mimeType: part.source.mediaType, data: part.source.data } };
      return { inlineData: await fetchImage(part.source.url, context) };
    case "tool-call":
      return { functionCall: { name: part.name, args: toolArgumentsObject(part.arguments) } };
    case "tool-result":
      return {
        functionResponse: {
          name: callNames.get(part.toolCallId) ?? part.toolCallId,
          response: responseObject(part.content),
        },
      };
  }
}

/** functionResponse.response must be an object: JSON objects pass, anything else (JSON past the limits too) is wrapped. */
function responseObject(content: string): Record<string, unknown> {
  const value = safeClientJson(content);
  if (value === undefined) return { content };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  return { result: value };
}
