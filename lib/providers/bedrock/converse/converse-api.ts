import { z } from "zod";

// What Bedrock's Converse API sends back. Loose: new block and event kinds appear.

const contentBlockSchema = z.looseObject({
  text: z.string().optional(),
  toolUse: z.looseObject({ toolUseId: z.string(), name: z.string(), input: z.unknown().optional() }).optional(),
  reasoningContent: z
    .looseObject({
      reasoningText: z.looseObject({ text: z.string().optional(), signature: z.string().optional() }).optional(),
      redactedContent: z.string().optional(),
    })
    .optional(),
});

export const converseUsageSchema = z.looseObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  cacheReadInputTokens: z.number().nullish(),
  cacheWriteInputTokens: z.number().nullish(),
});

export const converseResponseSchema = z.looseObject({
  output: z.looseObject({ message: z.looseObject({ role: z.string().optional(), content: z.array(contentBlockSchema) }).optional() }),
  stopReason: z.string().optional(),
  usage: converseUsageSchema.optional(),
});

/** The payload of each ConverseStream event, by its `:event-type`. */
export const converseStreamEventSchemas = {
  messageStart: z.looseObject({ role: z.string().optional() }),
  contentBlockStart: z.looseObject({
    contentBlockIndex: z.number().int(),
    start: z.looseObject({ toolUse: z.looseObject({ toolUseId: z.string(), name: z.string() }).optional() }).optional(),
  }),
  contentBlockDelta: z.looseObject({
    contentBlockIndex: z.number().int(),
    delta: z.looseObject({
      text: z.string().optional(),
      toolUse: z.looseObject({ input: z.string().optional() }).optional(),
      reasoningContent: z.looseObject({ text: z.string().optional(), signature: z.string().optional(), redactedContent: z.string().optional() }).optional(),
    }),
  }),
  contentBlockStop: z.looseObject({ contentBlockIndex: z.number().int() }),
  messageStop: z.looseObject({ stopReason: z.string().optional() }),
  metadata: z.looseObject({ usage: converseUsageSchema.optional() }),
};

export type ConverseUsage = z.infer<typeof converseUsageSchema>;
