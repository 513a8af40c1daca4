import { z } from "zod";

// What Gemini upstreams send back. Every level may be missing (blocked output).

const partSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  functionCall: z.looseObject({ name: z.string(), args: z.unknown().optional(), id: z.string().optional() }).optional(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
});

export const generateContentResponseSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ parts: z.array(partSchema).optional() }).optional(),
        finishReason: z.string().optional(),
        index: z.number().optional(),
        // Present when Google Search grounded the answer.
        groundingMetadata: z
          .looseObject({
            webSearchQueries: z.array(z.string()).nullish(),
            groundingChunks: z.array(z.looseObject({ web: z.looseObject({ uri: z.string().optional(), title: z.string().optional() }).optional() })).nullish(),
            groundingSupports: z
              .array(z.looseObject({ segment: z.looseObject({ text: z.string().optional() }).optional(), groundingChunkIndices: z.array(z.number()).nullish() }))
              .nullish(),
          })
          .optional(),
      }),
    )
    .optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z.unknown().optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional(), status: z.string().optional() }).optional(),
});

export type GenerateContentResponse = z.infer<typeof generateContentResponseSchema>;
export type GroundingMetadata = NonNullable<NonNullable<GenerateContentResponse["candidates"]>[number]["groundingMetadata"]>;

export const geminiErrorSchema = z.looseObject({
  error: z.looseObject({ code: z.number().optional(), message: z.string().optional(), status: z.string().optional() }),
});
