import type { ChannelType } from "@/lib/routing/channel";

/** Each channel type as the console names it; the API keeps the ids. */
export const CHANNEL_TYPE_LABELS: Record<ChannelType, string> = {
  openai: "OpenAI or compatible",
  azure: "Azure OpenAI",
  anthropic: "Anthropic",
  gemini: "Google Gemini",
  bedrock: "AWS Bedrock",
  vertex: "Google Vertex AI",
  mock: "Mock",
};
