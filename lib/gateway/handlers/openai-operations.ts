import { completionRequestSchema, embeddingsRequestSchema, imageGenerationRequestSchema, rerankRequestSchema, speechRequestSchema } from "@/lib/formats/openai/operation-schemas";
import { openAIOperationHandler, openAIUploadHandler } from "@/lib/gateway/call-operation";
import { env } from "@/lib/env";

const joined = (value: unknown): string => (typeof value === "string" ? value : Array.isArray(value) ? value.map(joined).join("\n") : "");

/** POST /v1/completions (legacy text completions, stream and not). */
export const handleCompletions = openAIOperationHandler({
  endpoint: "/v1/completions",
  operation: "completions",
  schema: completionRequestSchema,
  streams: true,
  promptText: (body) => joined(body.prompt),
  maxOutputTokens: (body) => body.max_tokens ?? env.QUOTA_DEFAULT_OUTPUT_TOKENS,
});

/** POST /v1/embeddings: relayed to OpenAI-type channels, translated by providers that embed otherwise (Gemini). */
export const handleEmbeddings = openAIOperationHandler({
  endpoint: "/v1/embeddings",
  operation: "embeddings",
  schema: embeddingsRequestSchema,
  promptText: (body) => joined(body.input),
});

/** POST /v1/images/generations */
export const handleImageGenerations = openAIOperationHandler({
  endpoint: "/v1/images/generations",
  operation: "images",
  schema: imageGenerationRequestSchema,
  promptText: (body) => body.prompt,
});

/** POST /v1/audio/speech: the audio streams back with the upstream's content type. */
export const handleSpeech = openAIOperationHandler({
  endpoint: "/v1/audio/speech",
  operation: "audio-speech",
  schema: speechRequestSchema,
  promptText: (body) => body.input,
});

/** POST /v1/rerank (Cohere/Jina shape) to channels that offer it. */
export const handleRerank = openAIOperationHandler({
  endpoint: "/v1/rerank",
  operation: "rerank",
  schema: rerankRequestSchema,
  promptText: (body) => [body.query, ...body.documents.map((document) => (typeof document === "string" ? document : document.text))].join("\n"),
});

/** POST /v1/images/edits (multipart: one or several `image[]` parts and an optional mask). */
export const handleImageEdits = openAIUploadHandler({ endpoint: "/v1/images/edits", operation: "image-edits", promptField: "prompt" });

/** POST /v1/audio/transcriptions (multipart upload; json, text, srt, vtt or verbose_json back). */
export const handleTranscriptions = openAIUploadHandler({ endpoint: "/v1/audio/transcriptions", operation: "audio-transcription", promptField: "prompt" });
