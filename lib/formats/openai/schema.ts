import { z } from "zod";
import { jsonObject } from "@/lib/formats/json-object";
import { messageList } from "@/lib/formats/message-list";

// OpenAI Chat Completions request, validated to the documented bounds. Objects are
// loose: fields this schema does not name pass through untouched to OpenAI-type upstreams.

const textPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal("image_url"),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(["auto", "low", "high"]).optional() }),
});
const audioPart = z.looseObject({
  type: z.literal("input_audio"),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});
const filePart = z.looseObject({ type: z.literal("file"), file: z.looseObject({}) });
const refusalPart = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });

const userContent = z.union([z.string(), z.array(z.discriminatedUnion("type", [textPart, imagePart, audioPart, filePart]))]);
const textContent = z.union([z.string(), z.array(textPart)]);

export const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const message = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: textContent, name: z.string().optional() }),
  z.looseObject({ role: z.literal("developer"), content: textContent, name: z.string().optional() }),
  z.looseObject({ role: z.literal("user"), content: userContent, name: z.string().optional() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.array(z.union([textPart, refusalPart])), z.null()]).optional(),
    name: z.string().optional(),
    tool_calls: z.array(toolCallSchema).optional(),
    refusal: z.string().nullable().optional(),
    reasoning_content: z.string().nullable().optional(),
  }),
  z.looseObject({ role: z.literal("tool"), content: textContent, tool_call_id: z.string() }),
  z.looseObject({ role: z.literal("function"), content: z.string().nullable(), name: z.string() }),
]);

const functionTool = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1).max(64),
    description: z.string().optional(),
    parameters: jsonObject.optional(),
    strict: z.boolean().nullable().optional(),
  }),
});
const customTool = z.looseObject({ type: z.literal("custom"), custom: z.looseObject({ name: z.string() }) });

const toolChoice = z.union([
  z.enum(["none", "auto", "required"]),
  z.looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string() }) }),
  z.looseObject({ type: z.literal("allowed_tools"), allowed_tools: z.looseObject({}) }),
  z.looseObject({ type: z.literal("custom"), custom: z.looseObject({ name: z.string() }) }),
]);

const positiveInt = z.number().int().min(1);

const chatCompletionFields = z.looseObject({
  model: z.string().min(1),
  messages: messageList(z.array(message).min(1)),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() }).nullable().optional(),
  max_tokens: positiveInt.nullable().optional(),
  max_completion_tokens: positiveInt.nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  n: positiveInt.max(128).nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4)])
    .nullable()
    .optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullable().optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  user: z.string().optional(),
  tools: z.array(z.union([functionTool, customTool])).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  response_format: z
    .discriminatedUnion("type", [
      z.looseObject({ type: z.literal("text") }),
      z.looseObject({ type: z.literal("json_object") }),
      z.looseObject({
        type: z.literal("json_schema"),
        json_schema: z.looseObject({ name: z.string(), schema: jsonObject.optional() }),
      }),
    ])
    .optional(),
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
});

function streamOptionsNeedStream(body: { stream?: boolean | null; stream_options?: unknown }, context: z.RefinementCtx): void {
  if (body.stream_options && body.stream !== true) {
    context.addIssue({
      code: "custom",
      path: ["stream_options"],
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    });
  }
}

export const chatCompletionRequestSchema = chatCompletionFields.superRefine(streamOptionsNeedStream);
/** Every field but the conversation (messages, tools), for a request whose conversation is read later (parseChatCompletionDeferred). */
export const chatCompletionHeadSchema = chatCompletionFields.omit({ messages: true, tools: true }).superRefine(streamOptionsNeedStream);

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatCompletionMessage = ChatCompletionRequest["messages"][number];
