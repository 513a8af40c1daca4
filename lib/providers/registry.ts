import type { ChannelType } from "@/lib/routing/channel";
import { anthropicProvider } from "./anthropic";
import { azureProvider } from "./azure";
import { bedrockProvider } from "./bedrock";
import { geminiProvider } from "./gemini";
import { mockProvider } from "./mock";
import { openAIProvider } from "./openai";
import type { Provider } from "./provider";
import { vertexProvider } from "./vertex";

export const providers: Record<ChannelType, Provider> = {
  openai: openAIProvider,
  anthropic: anthropicProvider,
  gemini: geminiProvider,
  azure: azureProvider,
  bedrock: bedrockProvider,
  vertex: vertexProvider,
  mock: mockProvider,
};
