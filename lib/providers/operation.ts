import { z } from "zod";

/** What a client asks the gateway to do; providers and channels declare which they serve. */
export const OPERATIONS = [
  "chat",
  "responses",
  "completions",
  "embeddings",
  "images",
  "image-edits",
  "audio-transcription",
  "audio-speech",
  "rerank",
  "realtime",
  "count-tokens",
  "compact",
] as const;
export const operationSchema = z.enum(OPERATIONS);
export type Operation = z.infer<typeof operationSchema>;

export type ClientFormatName = "openai" | "anthropic" | "gemini";
