import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI, type FunctionDeclaration } from "@google/genai";
import OpenAI from "openai";

// One small facade per official SDK, so the cross-format tests can ask every client
// the same question and compare what users of each SDK actually get back.

export interface Answer {
  text: string;
  reasoning: string;
  toolCalls: { id: string; name: string; args: Record<string, unknown> }[];
  finish: string;
  promptTokens: number;
  completionTokens: number;
  /** The model the answer names (OpenAI and Anthropic `model`, Gemini `modelVersion`). */
  model: string;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** Plain JSON Schema; each facade writes it the way its SDK's users do. */
  parameters: Record<string, unknown>;
}

export interface AskOptions {
  system?: string;
  maxTokens?: number;
  tools?: ToolSpec[];
  stream: boolean;
}

export interface ClientFacade {
  name: "openai" | "anthropic" | "gemini";
  ask(model: string, prompt: string, options: AskOptions): Promise<Answer>;
}

export function openAIFacade(baseUrl: string, key: string): ClientFacade & { client: OpenAI } {
  const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
  return {
    name: "openai",
    client,
    async ask(model, prompt, options) {
      const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [];
      if (options.system) messages.push({ role: "system", content: options.system });
      messages.push({ role: "user", content: prompt });
      const tools = options.tools?.map((tool) => ({ type: "function" as const, function: tool }));
      const params = { model, messages, max_tokens: options.maxTokens, ...(tools ? { tools } : {}) };
      if (options.stream) {
        const completion = await client.chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion();
        return fromCompletion(completion);
      }
      return fromCompletion(await client.chat.completions.create(params));
    },
  };
}

function fromCompletion(completion: OpenAI.Chat.ChatCompletion): Answer {
  const choice = completion.choices[0]!;
  return {
    text: choice.message.content ?? "",
    reasoning: String((choice.message as unknown as { reasoning_content?: string }).reasoning_content ?? ""),
    toolCalls: (choice.message.tool_calls ?? []).map((call) => {
      if (call.type !== "function") throw new Error("custom tool call");
      return { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments || "{}") };
    }),
    finish: choice.finish_reason,
    promptTokens: completion.usage?.prompt_tokens ?? -1,
    completionTokens: completion.usage?.completion_tokens ?? -1,
    model: completion.model,
  };
}

export function anthropicFacade(baseUrl: string, key: string, auth: "apiKey" | "authToken" = "apiKey"): ClientFacade & { client: Anthropic } {
  const client = new Anthropic({ baseURL: baseUrl, maxRetries: 0, ...(auth === "apiKey" ? { apiKey: key } : { authToken: key, apiKey: null }) });
  return {
    name: "anthropic",
    client,
    async ask(model, prompt, options) {
      const params: Anthropic.MessageCreateParamsNonStreaming = {
        model,
        max_tokens: options.maxTokens ?? 1024,
        messages: [{ role: "user", content: prompt }],
        ...(options.system ? { system: options.system } : {}),
        ...(options.tools
          ? { tools: options.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters as Anthropic.Tool.InputSchema })) }
          : {}),
      };
      const message = options.stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      return {
        text: message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
        reasoning: message.content.map((block) => (block.type === "thinking" ? block.thinking : "")).join(""),
        toolCalls: message.content.flatMap((block) => (block.type === "tool_use" ? [{ id: block.id, name: block.name, args: block.input as Record<string, unknown> }] : [])),
        finish: message.stop_reason ?? "",
        promptTokens: message.usage.input_tokens + (message.usage.cache_read_input_tokens ?? 0) + (message.usage.cache_creation_input_tokens ?? 0),
        completionTokens: message.usage.output_tokens,
        model: message.model,
      };
    },
  };
}

/** JSON Schema -> the upper-case OpenAPI style @google/genai users write. */
export function toGeminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = { ...schema };
  if (typeof schema.type === "string") result.type = schema.type.toUpperCase();
  if (schema.properties) {
    result.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([name, child]) => [name, toGeminiSchema(child)]));
  }
  return result;
}

export function geminiFacade(baseUrl: string, key: string): ClientFacade & { client: GoogleGenAI } {
  const client = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl } });
  return {
    name: "gemini",
    client,
    async ask(model, prompt, options) {
      const config = {
        ...(options.system ? { systemInstruction: options.system } : {}),
        ...(options.maxTokens ? { maxOutputTokens: options.maxTokens } : {}),
        ...(options.tools
          ? {
              tools: [
                {
                  functionDeclarations: options.tools.map(
                    (tool): FunctionDeclaration => ({ name: tool.name, description: tool.description, parameters: toGeminiSchema(tool.parameters) as never }),
                  ),
                },
              ],
            }
          : {}),
      };
      const answer: Answer = { text: "", reasoning: "", toolCalls: [], finish: "", promptTokens: -1, completionTokens: -1, model: "" };
      const chunks = options.stream
        ? await client.models.generateContentStream({ model, contents: prompt, config })
        : [await client.models.generateContent({ model, contents: prompt, config })];
      for await (const chunk of chunks) {
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
          if (part.functionCall) answer.toolCalls.push({ id: part.functionCall.id ?? "", name: part.functionCall.name ?? "", args: part.functionCall.args ?? {} });
          else if (part.thought) answer.reasoning += part.text ?? "";
          else answer.text += part.text ?? "";
        }
        if (chunk.modelVersion) answer.model = chunk.modelVersion;
        const finish = chunk.candidates?.[0]?.finishReason;
        if (finish) answer.finish = finish;
        if (chunk.usageMetadata) {
          answer.promptTokens = chunk.usageMetadata.promptTokenCount ?? -1;
          answer.completionTokens = (chunk.usageMetadata.candidatesTokenCount ?? 0) + (chunk.usageMetadata.thoughtsTokenCount ?? 0);
        }
      }
      return answer;
    },
  };
}
