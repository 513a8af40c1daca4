import { z } from "zod";

export const CHANNEL_TYPES = ["openai", "anthropic", "gemini", "mock"] as const;
export const channelTypeSchema = z.enum(CHANNEL_TYPES);
export type ChannelType = z.infer<typeof channelTypeSchema>;

/** A channel as the hot path sees it: validated, with its key decrypted, in memory. */
export interface Channel {
  id: string;
  name: string;
  type: ChannelType;
  baseUrl: string;
  apiKey: string | undefined;
  models: string[];
  modelMap: Record<string, string>;
  priority: number;
  weight: number;
  enabled: boolean;
}
