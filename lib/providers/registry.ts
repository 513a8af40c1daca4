import type { ChannelType } from "@/lib/routing/channel";
import { mockProvider } from "./mock";
import { openAIProvider } from "./openai";
import type { Provider } from "./provider";

export const providers: Record<ChannelType, Provider> = {
  openai: openAIProvider,
  mock: mockProvider,
};
