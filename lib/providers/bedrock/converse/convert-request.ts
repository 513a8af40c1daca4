import { GatewayError } from "@/lib/canonical/gateway-error";
import { toolArgumentsObject } from "@/lib/canonical/json";
import type { ChatRequest, ContentPart, ImageSource, ToolChoice } from "@/lib/canonical/request";
import { anthropicToolId } from "@/lib/formats/anthropic/ids";
import { fetchPublicUrl } from "@/lib/net/fetch-public-url";
import type { AttemptContext } from "@/lib/providers/provider";

// Canonical request -> Bedrock Converse body. Converse is one shape for every model on
// Bedrock; what a given model does not take (tools on some, images on most) Bedrock
// refuses itself with a ValidationException, which reaches the caller as a 400.

type Block = Record<string, unknown>;
type Turn = { role: "user" | "assistant"; content: Block[] };

const IMAGE_FORMATS: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg", "image/jpg": "jpeg", "image/gif": "gif", "image/webp": "webp" };
const MAX_IMAGE_BYTES = 3_750_000;

export async function toConverseBody(request: ChatRequest, context: AttemptContext): Promise<Record<string, unknown>> {
  const warnings = context.warnings;
  const turns: Turn[] = [];
  for (const message of request.messages) {
    const role = message.role === "assistant" ? "assistant" : "user";
    const blocks: Block[] = [];
    for (const part of message.content) {
      const block = await toBlock(part, role, context);
      if (block) blocks.push(block);
    }
    if (blocks.length === 0) continue;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  // Converse wants the conversation to open with a user turn, and tool results first in theirs.
  if (turns[0]?.role !== "user") turns.unshift({ role: "user", content: [{ text: "..." }] });
  for (const turn of turns) if (turn.role === "user") turn.content.sort((a, b) => Number(!a.toolResult) - Number(!b.toolResult));

  const body: Record<string, unknown> = { messages: turns };
  let system = request.system;
  if (request.responseFormat) {
    const schema = request.responseFormat.schema ? ` matching this JSON Schema:\n${JSON.stringify(request.responseFormat.schema)}` : "";
    system = `${system ? `${system}\n\n` : ""}Answer with a single JSON value and nothing else${schema}`;
    warnings.push("response format given to Bedrock Converse as an instruction in the system prompt (not enforced)");
  }
  if (system) body.system = [{ text: system }];

  const inference: Record<string, unknown> = {};
  if (request.maxTokens !== undefined) inference.maxTokens = request.maxTokens;
  if (request.temperature !== undefined) {
    if (request.temperature > 1) warnings.push(`temperature ${request.temperature} clamped to 1, the most Bedrock models take`);
    inference.temperature = Math.min(request.temperature, 1);
  }
  if (request.topP !== undefined) inference.topP = request.topP;
  if (request.stop?.length) inference.stopSequences = request.stop;
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (request.topK !== undefined) warnings.push("top_k dropped: Converse has no common field for it");
  if (request.reasoning) warnings.push("reasoning settings dropped: Converse has no common field for them (Claude models are called through InvokeModel, which has)");
  if (request.user) {
    // Converse's request metadata (kept in Bedrock's invocation logs) takes only these characters.
    if (/^[a-zA-Z0-9\s:_@$#=/+,\-.]{1,256}$/.test(request.user)) body.requestMetadata = { user: request.user };
    else warnings.push("user dropped: Converse's request metadata takes at most 256 letters, digits, spaces and :_@$#=/+,-.");
  }
  if (request.hostedTools?.length) warnings.push(`hosted tools dropped (${request.hostedTools.map((tool) => tool.name).join(", ")}): Bedrock runs none`);

  if (request.tools?.length) {
    const choice = toolChoice(request.toolChoice, warnings);
    body.toolConfig = { tools: request.tools.map((tool) => toolSpec(tool.name, tool.description, tool.parameters)), ...(choice ? { toolChoice: choice } : {}) };
    if (request.parallelToolCalls === false) warnings.push("parallel_tool_calls=false has no Converse equivalent and was dropped");
  } else {
    // Converse refuses a history of tool calls without a tool configuration: the tools it calls are declared.
    const called = new Set(turns.flatMap((turn) => turn.content.flatMap((block) => (block.toolUse ? [(block.toolUse as { name: string }).name] : []))));
    if (called.size > 0) {
      body.toolConfig = { tools: [...called].map((name) => toolSpec(name, "A tool called earlier in this conversation.", undefined)) };
      warnings.push("the history calls tools the request does not declare: they were declared for Bedrock with an open schema");
    }
  }
  return body;
}

function toolSpec(name: string, description: string | undefined, parameters: Record<string, unknown> | undefined): Block {
  const schema = parameters && Object.keys(parameters).length ? parameters : { type: "object", properties: {} };
  return { toolSpec: { name, ...(description ? { description } : {}), inputSchema: { json: schema } } };
}

function toolChoice(choice: ToolChoice | undefined, warnings: string[]): Record<string, unknown> | undefined {
  switch (choice?.type) {
    case undefined:
    case "auto":
      return undefined;
    case "none":
      warnings.push("tool_choice none given as auto: Converse cannot forbid tool calls while tools are declared");
      return undefined;
    case "required":
      return { any: {} };
    case "tool":
      return { tool: { name: choice.name } };
    case "hosted":
      warnings.push("tool_choice forcing a hosted tool dropped: Bedrock runs none");
      return undefined;
  }
}

async function toBlock(part: ContentPart, role: Turn["role"], context: AttemptContext): Promise<Block | undefined> {
  switch (part.type) {
    case "text":
      return part.text ? { text: part.text } : undefined;
    case "image":
      if (role === "assistant") return undefined;
      return { image: await imageBlock(part.source, context) };
    case "tool-call":
      return { toolUse: { toolUseId: anthropicToolId(part.id), name: part.name, input: toolArgumentsObject(part.arguments) } };
    case "tool-result":
      return {
        toolResult: {
          toolUseId: anthropicToolId(part.toolCallId),
          content: [{ text: part.content || "(empty)" }],
          ...(part.isError ? { status: "error" } : {}),
        },
      };
    case "reasoning":
      // Only a signed reasoning block (from this model) can be replayed.
      if (role === "assistant" && part.signature) return { reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } };
      if (part.text) context.warnings.push("unsigned reasoning from the history was not sent to Bedrock");
      return undefined;
  }
}

/** Converse takes images as bytes (base64 in JSON) in png, jpeg, gif or webp; a URL is fetched first. */
async function imageBlock(source: ImageSource, context: AttemptContext): Promise<Block> {
  let mediaType: string;
  let data: string;
  if (source.kind === "base64") {
    mediaType = source.mediaType;
    data = source.data;
  } else {
    const fetched = await fetchPublicUrl(source.url, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 30_000, accept: "image/*", signal: context.signal, param: "image_url" });
    mediaType = fetched.contentType.split(";")[0]!.trim();
    data = fetched.body.toString("base64");
  }
  const format = IMAGE_FORMATS[mediaType.toLowerCase()];
  if (!format) throw new GatewayError("invalid_request", `Bedrock takes png, jpeg, gif or webp images, not ${mediaType}.`, { param: "messages" });
  return { format, source: { bytes: data } };
}
