import type { ChannelType } from "@/lib/routing/channel";
import { anthropicProvider } from "./anthropic";
import { geminiProvider } from "./gemini";
import { mockProvider } from "./mock";
import { openAIProvider } from "./openai";
import type { Provider } from "./provider";
import { vertexProvider } from "./vertex";

export const providers: Record<ChannelType, Provider> = {
  openai: openAIProvider,
  anthropic: anthropicProvider,
  gemini: geminiProvider,
  vertex: vertexProvider,
  mock: mockProvider,
};
