import { z } from "zod";

// What Anthropic upstreams send back. Loose: new fields and block types appear often.

export const contentBlockSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  thinking: z.string().optional(),
  signature: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
  // web_search_tool_result: the search it answers and what it found; text: its citations.
  tool_use_id: z.string().optional(),
  content: z.unknown().optional(),
  citations: z.array(z.unknown()).nullish(),
});

export const messageResponseSchema = z.looseObject({
  id: z.string(),
  model: z.string().optional(),
  content: z.array(contentBlockSchema),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: z.unknown().optional(),
});

export const streamEventSchema = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("message_start"), message: z.looseObject({ id: z.string(), model: z.string().optional(), usage: z.unknown().optional() }) }),
  z.looseObject({ type: z.literal("content_block_start"), index: z.number().int(), content_block: contentBlockSchema }),
  z.looseObject({
    type: z.literal("content_block_delta"),
    index: z.number().int(),
    delta: z.looseObject({
      type: z.string(),
      text: z.string().optional(),
      thinking: z.string().optional(),
      signature: z.string().optional(),
      partial_json: z.string().optional(),
      citation: z.unknown().optional(),
    }),
  }),
  z.looseObject({ type: z.literal("content_block_stop"), index: z.number().int() }),
  z.looseObject({
    type: z.literal("message_delta"),
    delta: z.looseObject({ stop_reason: z.string().nullish(), stop_sequence: z.string().nullish() }),
    usage: z.unknown().optional(),
  }),
  z.looseObject({ type: z.literal("message_stop") }),
  z.looseObject({ type: z.literal("ping") }),
  z.looseObject({ type: z.literal("error"), error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }) }),
]);

export const anthropicErrorSchema = z.looseObject({
  error: z.looseObject({ type: z.string().optional(), message: z.string().optional() }),
});
