import { z } from "zod";
import { byType } from "@/lib/formats/by-type";
import { jsonObject } from "@/lib/formats/json-object";
import { messageList } from "@/lib/formats/message-list";

// The OpenAI Responses API request, as far as routing and translation read it; unknown
// fields stay in the body for upstreams that serve /responses natively.

const text = z.string();

const inputContentSchema = byType([
  z.looseObject({ type: z.enum(["input_text", "output_text"]), text }),
  z.looseObject({ type: z.literal("refusal"), refusal: text }),
  z.looseObject({ type: z.literal("input_image"), image_url: z.string().nullish(), file_id: z.string().nullish(), detail: z.string().optional() }),
]);
export type InputContent = z.infer<typeof inputContentSchema>;

const messageFields = {
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([text, z.array(inputContentSchema)]),
};
export const messageItemSchema = z.looseObject({ type: z.literal("message").optional(), ...messageFields });
const output = z.union([text, z.array(inputContentSchema)]);

// A message may come without a type (the short form); every other item names its type.
export const inputItemSchema = byType([
  messageItemSchema,
  z.looseObject({ type: z.literal("function_call"), call_id: z.string(), name: z.string(), arguments: z.string() }),
  z.looseObject({ type: z.literal("function_call_output"), call_id: z.string(), output }),
  z.looseObject({ type: z.literal("custom_tool_call"), call_id: z.string(), name: z.string(), input: z.string() }),
  z.looseObject({ type: z.literal("custom_tool_call_output"), call_id: z.string(), output }),
  z.looseObject({ type: z.literal("reasoning"), summary: z.array(z.looseObject({ text: z.string() })).optional() }),
]);
export type InputItem = z.infer<typeof inputItemSchema>;

const functionToolSchema = z.looseObject({
  type: z.literal("function"),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: jsonObject.nullish(),
  strict: z.boolean().nullish(),
});
const customToolSchema = z.looseObject({ type: z.literal("custom"), name: z.string().min(1), description: z.string().nullish(), format: z.unknown().optional() });

// Any other type is a tool OpenAI's own service runs (web_search, mcp...): see parse-tools.ts.
export const toolSchema = byType([
  functionToolSchema,
  customToolSchema,
  z.looseObject({
    type: z.literal("namespace"),
    name: z.string().min(1),
    description: z.string().nullish(),
    tools: z
      .array(z.discriminatedUnion("type", [functionToolSchema, customToolSchema]))
      .min(1)
      .max(512),
  }),
]);
export type ResponsesTool = z.infer<typeof toolSchema>;

export const responsesRequestSchema = z.looseObject({
  model: z.string().trim().min(1, "you must provide a model parameter").max(200),
  input: z.union([text, messageList(z.array(inputItemSchema))]).optional(),
  instructions: z.string().nullish(),
  tools: z.array(toolSchema).max(512).optional(),
  tool_choice: z
    .union([z.enum(["auto", "none", "required"]), z.looseObject({ type: z.enum(["function", "custom"]), name: z.string() }), z.looseObject({ type: z.string() })])
    .optional(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().min(1).nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  previous_response_id: z.string().nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  text: z
    .looseObject({
      format: z
        .union([
          z.looseObject({ type: z.literal("json_schema"), name: z.string().optional(), schema: jsonObject, strict: z.boolean().nullish() }),
          z.looseObject({ type: z.enum(["text", "json_object"]) }),
        ])
        .optional(),
    })
    .nullish(),
  user: z.string().optional(),
});
export type ResponsesRequest = z.infer<typeof responsesRequestSchema>;
