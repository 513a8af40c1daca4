import { z } from "zod";

// Request bodies of the OpenAI-format operations beyond chat. Only what routing, limits
// and translation need is checked; every other field reaches the upstream as sent.

const model = z.string().trim().min(1, "you must provide a model parameter").max(200);
const stringOrStrings = z.union([z.string(), z.array(z.string()).min(1)]);
const tokens = z.array(z.number().int().min(0));

export const completionRequestSchema = z.looseObject({
  model,
  prompt: z.union([stringOrStrings, tokens, z.array(tokens).min(1)]),
  max_tokens: z.number().int().min(0).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});

export const embeddingsRequestSchema = z.looseObject({
  model,
  input: z.union([z.string(), z.array(z.string()).min(1).max(2048), tokens.min(1), z.array(tokens.min(1)).min(1).max(2048)]),
  encoding_format: z.enum(["float", "base64"]).optional(),
  dimensions: z.number().int().min(1).max(65_536).optional(),
});
export type EmbeddingsRequestBody = z.infer<typeof embeddingsRequestSchema>;

export const imageGenerationRequestSchema = z.looseObject({
  model,
  prompt: z.string().min(1).max(32_000),
  n: z.number().int().min(1).max(10).nullish(),
  response_format: z.enum(["url", "b64_json"]).nullish(),
});

export const speechRequestSchema = z.looseObject({
  model,
  input: z.string().min(1).max(4096),
  voice: z.union([z.string().min(1), z.looseObject({ id: z.string() })]),
  response_format: z.enum(["mp3", "opus", "aac", "flac", "wav", "pcm"]).optional(),
  stream_format: z.enum(["sse", "audio"]).optional(),
});

export const rerankRequestSchema = z.looseObject({
  model,
  query: z.string().min(1),
  documents: z
    .array(z.union([z.string(), z.looseObject({ text: z.string() })]))
    .min(1)
    .max(10_000),
  top_n: z.number().int().min(1).optional(),
});
