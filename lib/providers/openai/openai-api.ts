import { z } from "zod";

// What OpenAI-compatible upstreams send back. Loose: servers add their own fields.

const toolCallDelta = z.looseObject({
  index: z.number().int().optional(),
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

export const chatCompletionChunkSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created: z.number().nullish(),
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().nullish(),
        delta: z
          .looseObject({
            role: z.string().nullish(),
            content: z.string().nullish(),
            reasoning_content: z.string().nullish(),
            reasoning: z.string().nullish(),
            refusal: z.string().nullish(),
            tool_calls: z.array(toolCallDelta).nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z.unknown().optional(),
  error: z.unknown().optional(),
});

export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;

export const chatCompletionResponseSchema = z.looseObject({
  id: z.string().nullish(),
  model: z.string().nullish(),
  created: z.number().nullish(),
  choices: z.array(
    z.looseObject({
      index: z.number().int().nullish(),
      message: z.looseObject({
        role: z.string().nullish(),
        content: z.string().nullish(),
        reasoning_content: z.string().nullish(),
        reasoning: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z
          .array(
            z.looseObject({
              id: z.string(),
              type: z.string().nullish(),
              function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
            }),
          )
          .nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: z.unknown().optional(),
});

export const openAIErrorBodySchema = z.looseObject({
  error: z.union([
    z.looseObject({
      message: z.string().nullish(),
      type: z.string().nullish(),
      param: z.string().nullish(),
      code: z.union([z.string(), z.number()]).nullish(),
    }),
    z.string(),
  ]),
});
