import { randomUUID } from "node:crypto";
import type { ChatRequest, ContentPart, Message, ToolChoice, ToolDefinition } from "@/lib/canonical/request";
import { validationError } from "@/lib/formats/validation-error";
import { camelizeGeminiRequest } from "./normalize-keys";
import { toJsonSchema } from "./normalize-schema";
import { generateContentRequestSchema, type GeminiPart, type GenerateContentRequest } from "./schema";

export interface ParsedGenerateContent {
  body: GenerateContentRequest;
  chat: ChatRequest;
  warnings: string[];
}

export function parseGenerateContentRequest(json: unknown, model: string, stream: boolean): ParsedGenerateContent {
  const result = generateContentRequestSchema.safeParse(camelizeGeminiRequest(json));
  if (!result.success) throw validationError(result.error);
  const warnings: string[] = [];
  return { body: result.data, chat: toCanonical(result.data, model, stream, warnings), warnings };
}

export function toCanonical(body: GenerateContentRequest, model: string, stream: boolean, warnings: string[]): ChatRequest {
  const system = typeof body.systemInstruction === "string" ? body.systemInstruction : body.systemInstruction?.parts.map((part) => part.text ?? "").join("\n");

  // Gemini calls often carry no id: make ids up, and pair each response with the
  // earliest unanswered call of the same name.
  const unanswered: { id: string; name: string }[] = [];
  const messages: Message[] = [];
  for (const content of body.contents) {
    if (content.role === "model") {
      const parts: ContentPart[] = [];
      for (const part of content.parts) {
        if (part.functionCall) {
          const id = part.functionCall.id ?? `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
          unanswered.push({ id, name: part.functionCall.name });
          parts.push({ type: "tool-call", id, name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
        } else if (part.text !== undefined && part.thought) {
          parts.push({ type: "reasoning", text: part.text });
        } else if (part.text) {
          parts.push({ type: "text", text: part.text });
        }
      }
      messages.push({ role: "assistant", content: parts });
      continue;
    }
    const results: ContentPart[] = [];
    const rest: ContentPart[] = [];
    for (const part of content.parts) {
      if (part.functionResponse) {
        const { name, id, response } = part.functionResponse;
        const index = unanswered.findIndex((call) => (id ? call.id === id : call.name === name));
        const call = index >= 0 ? unanswered.splice(index, 1)[0]! : { id: id ?? `call_${name}`, name };
        results.push({ type: "tool-result", toolCallId: call.id, content: responseText(response) });
      } else {
        rest.push(...userPart(part, warnings));
      }
    }
    if (results.length) messages.push({ role: "tool", content: results });
    if (rest.length) messages.push({ role: "user", content: rest });
  }

  const config = body.generationConfig;
  if (config?.candidateCount && config.candidateCount > 1) warnings.push("candidateCount > 1 is not supported; one candidate is returned");
  if (config?.responseMimeType && config.responseMimeType !== "text/plain") {
    warnings.push(`responseMimeType '${config.responseMimeType}' is only honoured by Gemini upstreams`);
  }
  const thinking = config?.thinkingConfig;
  const tools: ToolDefinition[] = (body.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => ({
      name: declaration.name,
      description: declaration.description,
      parameters: (declaration.parametersJsonSchema ?? toJsonSchema(declaration.parameters)) as Record<string, unknown> | undefined,
    })),
  );
  return {
    model,
    system: system || undefined,
    messages,
    stream,
    maxTokens: config?.maxOutputTokens,
    temperature: config?.temperature,
    topP: config?.topP,
    topK: config?.topK,
    stop: config?.stopSequences,
    tools: tools.length ? tools : undefined,
    toolChoice: toolChoice(body.toolConfig?.functionCallingConfig),
    reasoning:
      thinking && thinking.thinkingBudget !== 0
        ? thinking.thinkingLevel
          ? { effort: effortOf(thinking.thinkingLevel) }
          : thinking.thinkingBudget && thinking.thinkingBudget > 0
            ? { budgetTokens: thinking.thinkingBudget }
            : thinking.includeThoughts
              ? { effort: "medium" }
              : undefined
        : undefined,
  };
}

function effortOf(level: string): "minimal" | "low" | "medium" | "high" {
  const value = level.toLowerCase();
  return value === "minimal" || value === "low" || value === "medium" ? value : "high";
}

function toolChoice(config: { mode?: string; allowedFunctionNames?: string[] } | undefined): ToolChoice | undefined {
  if (!config?.mode) return undefined;
  if (config.mode === "NONE") return { type: "none" };
  if (config.mode === "ANY") {
    return config.allowedFunctionNames?.length === 1 ? { type: "tool", name: config.allowedFunctionNames[0]! } : { type: "required" };
  }
  return { type: "auto" };
}

function responseText(response: Record<string, unknown> | undefined): string {
  if (!response) return "";
  // The wrappers gateways use for non-object results unwrap back to the plain value.
  const keys = Object.keys(response);
  if (keys.length === 1 && (keys[0] === "content" || keys[0] === "output" || keys[0] === "result") && typeof response[keys[0]] === "string") {
    return response[keys[0]] as string;
  }
  return JSON.stringify(response);
}

function userPart(part: GeminiPart, warnings: string[]): ContentPart[] {
  if (part.text !== undefined) return part.text ? [{ type: "text", text: part.text }] : [];
  if (part.inlineData) {
    if (part.inlineData.mimeType.startsWith("image/")) {
      return [{ type: "image", source: { kind: "base64", mediaType: part.inlineData.mimeType, data: part.inlineData.data } }];
    }
    warnings.push(`inline ${part.inlineData.mimeType} data was dropped`);
    return [];
  }
  if (part.fileData) {
    if (/^https?:\/\//.test(part.fileData.fileUri)) return [{ type: "image", source: { kind: "url", url: part.fileData.fileUri } }];
    warnings.push("fileData outside http(s) was dropped");
    return [];
  }
  warnings.push(`part with fields ${Object.keys(part).join(",")} was dropped`);
  return [];
}
