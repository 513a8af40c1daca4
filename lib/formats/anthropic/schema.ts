import { z } from "zod";
import { byType } from "@/lib/formats/by-type";
import { jsonObject } from "@/lib/formats/json-object";
import { messageList } from "@/lib/formats/message-list";

// Anthropic Messages request, to the documented bounds. Loose objects: unknown fields
// pass through untouched to Anthropic upstreams.

const cacheControl = z.looseObject({ type: z.string() }).optional();
const textBlock = z.looseObject({ type: z.literal("text"), text: z.string(), cache_control: cacheControl });
const imageBlock = z.looseObject({
  type: z.literal("image"),
  source: z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("base64"), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal("url"), url: z.string() }),
    z.looseObject({ type: z.literal("file"), file_id: z.string() }),
  ]),
});
const documentBlock = z.looseObject({ type: z.literal("document"), source: z.looseObject({ type: z.string() }) });
const toolUseBlock = z.looseObject({
  type: z.literal("tool_use"),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});
const toolResultBlock = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
  is_error: z.boolean().optional(),
});
const thinkingBlock = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string().optional() });
const redactedThinkingBlock = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() });
// Server-tool and newer block types are accepted and handled by the converters.
export const contentBlockSchema = byType([textBlock, imageBlock, documentBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock]);
export type AnthropicContentBlock = z.infer<typeof contentBlockSchema>;

const systemSchema = z.union([z.string(), z.array(textBlock)]);

const messageSchema = z.looseObject({
  // Current SDKs may put a system message inside `messages`; it is folded into `system`.
  role: z.enum(["user", "assistant", "system"]),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
});

const toolSchema = z.looseObject({
  name: z.string().min(1).max(128),
  type: z.string().optional(),
  description: z.string().optional(),
  input_schema: jsonObject.optional(),
});

const toolChoiceSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("none") }),
  z.looseObject({ type: z.literal("tool"), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
]);

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  // 0 pre-warms the prompt cache without generating.
  max_tokens: z.number().int().min(0),
  messages: messageList(z.array(messageSchema).min(1)),
  system: systemSchema.optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: z
    .discriminatedUnion("type", [
      z.looseObject({ type: z.literal("enabled"), budget_tokens: z.number().int().min(1024) }),
      z.looseObject({ type: z.literal("disabled") }),
      z.looseObject({ type: z.literal("adaptive") }),
    ])
    .optional(),
  output_config: z.looseObject({ effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional() }).optional(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
});

export type MessagesRequest = z.infer<typeof messagesRequestSchema>;

export const countTokensRequestSchema = messagesRequestSchema.omit({ max_tokens: true });
export type CountTokensRequest = z.infer<typeof countTokensRequestSchema>;
