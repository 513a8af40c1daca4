import { z } from "zod";
import type { Prices } from "@/lib/limits/prices";
import type { Operation } from "@/lib/providers/operation";

export const CHANNEL_TYPES = ["openai", "anthropic", "gemini", "azure", "bedrock", "vertex", "mock"] as const;
export const channelTypeSchema = z.enum(CHANNEL_TYPES);
export type ChannelType = z.infer<typeof channelTypeSchema>;

/** Per-channel overrides of the global upstream timeouts (ms). */
export const channelTimeoutsSchema = z.strictObject({
  connectMs: z.number().int().min(1).max(600_000).optional(),
  firstByteMs: z.number().int().min(1).max(3_600_000).optional(),
  idleMs: z.number().int().min(1).max(3_600_000).optional(),
  totalMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3_600_000)
    .optional(),
});
export type ChannelTimeouts = z.infer<typeof channelTimeoutsSchema>;

/** A channel as the hot path sees it: validated, with its key decrypted, in memory. */
export interface Channel {
  id: string;
  name: string;
  type: ChannelType;
  baseUrl: string;
  /** The first key of the channel's pool (its only one, usually). */
  apiKey: string | undefined;
  /** Every key of the pool, `apiKey` first, when there are several: requests spread over them. */
  apiKeys?: string[];
  /** Pool keys the upstream refused, by fingerprint (key-pool.ts), with the reason. */
  disabledKeys?: Record<string, string>;
  models: string[];
  modelMap: Record<string, string>;
  priority: number;
  weight: number;
  /** Switched on or off by an administrator. */
  enabled: boolean;
  /** Set when the gateway took the channel out of rotation itself; a probe clears it. */
  autoDisabledReason: string | null;
  /** Operations this channel serves; empty means every one its provider supports. */
  capabilities: Operation[];
  prices: Prices;
  timeouts: ChannelTimeouts;
  /** The channel type's own settings, secrets decrypted (validated by its provider on save). */
  settings: Record<string, unknown>;
}

/** Whether the channel takes traffic for this operation at all (token counting goes with chat). */
export function channelServes(channel: Channel, operation: Operation): boolean {
  if (channel.capabilities.length === 0 || channel.capabilities.includes(operation)) return true;
  // Compaction is a Responses call: a channel that serves Responses serves it.
  return (operation === "count-tokens" && channel.capabilities.includes("chat")) || (operation === "compact" && channel.capabilities.includes("responses"));
}
