import { decryptSecret } from "@/lib/crypto/encryption";
import type { Database } from "@/lib/db/client";
import type { Channel as ChannelRow } from "@/lib/db/generated/client";
import { providers } from "@/lib/providers/registry";
import { openSettings } from "@/lib/channels/channel-settings";
import { pricesSchema } from "@/lib/limits/prices";
import { operationSchema } from "@/lib/providers/operation";
import { channelTimeoutsSchema, channelTypeSchema, type Channel } from "@/lib/routing/channel";
import { ReloadingCache } from "@/lib/state/reloading-cache";
import { channelTiers, orderTiers, type PickOptions, type Tier } from "@/lib/routing/pick-channels";

const PENDING_DISABLE_MS = 10_000;
const MAX_MODELS_REMEMBERED = 10_000;

/** All channels, in memory, keys decrypted once (the reloading is ReloadingCache's). */
export class ChannelCache extends ReloadingCache {
  private channels: Channel[] = [];
  /** Each model's channels by priority, worked out on its first request after the channels last changed. */
  private tiers = new Map<string, Tier[]>();
  /**
   * Each channel as last built, with the row it was built from: a reload keeps the same
   * object while the row is unchanged, so what hangs off it (its transport, a signer's key
   * cache, a cloud token) lives as long as the channel does, and keys are not decrypted again.
   */
  private built = new Map<string, { fingerprint: string; channel: Channel }>();
  private readonly pendingDisables = new Map<string, { reason: string; until: number }>();

  constructor(
    private readonly database: Database,
    /** The current key first, then keys from before a rotation. */
    private readonly encryptionKeys: Buffer[],
    onError: (error: unknown) => void,
  ) {
    super(onError);
  }

  protected async load(): Promise<void> {
    const rows = await this.database.channel.findMany({ orderBy: { createdAt: "asc" } });
    const now = Date.now();
    const built = new Map<string, { fingerprint: string; channel: Channel }>();
    const channels = rows.flatMap((row) => {
      try {
        const fingerprint = rowFingerprint(row);
        const kept = this.built.get(row.id);
        const channel = kept?.fingerprint === fingerprint ? kept.channel : this.toChannel(row);
        built.set(row.id, { fingerprint, channel });
        const pending = this.pendingDisables.get(channel.id);
        if (pending && (channel.autoDisabledReason || pending.until <= now)) this.pendingDisables.delete(channel.id);
        else if (pending) return [{ ...channel, autoDisabledReason: pending.reason }];
        return [channel];
      } catch (error) {
        this.onError(error);
        return [];
      }
    });
    this.built = built;
    this.replace(channels);
  }

  /** The channels from now on; the per-model tiers are worked out again only when one of them changed. */
  private replace(channels: Channel[]): void {
    const same = channels.length === this.channels.length && channels.every((channel, index) => channel === this.channels[index]);
    if (same) return;
    this.channels = channels;
    this.tiers = new Map();
  }

  private toChannel(row: ChannelRow): Channel {
    const type = channelTypeSchema.parse(row.type);
    return {
      id: row.id,
      name: row.name,
      type,
      baseUrl: row.baseUrl || providers[type].defaultBaseUrl,
      apiKey: row.apiKeyEncrypted ? decryptSecret(row.apiKeyEncrypted, this.encryptionKeys) : undefined,
      ...this.pool(row),
      models: stringArray(row.models),
      modelMap: stringRecord(row.modelMap),
      priority: row.priority,
      weight: row.weight,
      enabled: row.enabled,
      autoDisabledReason: row.autoDisabledReason,
      capabilities: stringArray(row.capabilities).filter((item) => operationSchema.safeParse(item).success) as Channel["capabilities"],
      prices: pricesSchema.catch({}).parse(row.prices),
      timeouts: channelTimeoutsSchema.catch({}).parse(row.timeouts),
      settings: openSettings(row.settings, this.encryptionKeys),
    };
  }

  /** The rest of the key pool and its refused keys, when the channel has more than one key. */
  private pool(row: ChannelRow): Pick<Channel, "apiKeys" | "disabledKeys"> {
    const rest = stringArray(row.apiKeysEncrypted);
    if (rest.length === 0 || !row.apiKeyEncrypted) return {};
    const keys = [row.apiKeyEncrypted, ...rest].map((sealed) => decryptSecret(sealed, this.encryptionKeys));
    return { apiKeys: keys, disabledKeys: stringRecord(row.disabledKeys) };
  }

  /**
   * Takes a channel out of rotation in this process at once. The database follows; until
   * a reload has seen it there, the mark is kept over reloaded rows (for a while).
   */
  markAutoDisabled(id: string, reason: string): void {
    this.pendingDisables.set(id, { reason, until: Date.now() + PENDING_DISABLE_MS });
    this.replace(this.channels.map((channel) => (channel.id === id ? { ...channel, autoDisabledReason: reason } : channel)));
  }

  all(): readonly Channel[] {
    return this.channels;
  }

  candidates(model: string, options?: PickOptions): Channel[] {
    let tiers = this.tiers.get(model);
    if (!tiers) {
      tiers = channelTiers(this.channels, model);
      // Bounded: names no channel serves are remembered too (as no tiers), and callers choose them.
      if (this.tiers.size >= MAX_MODELS_REMEMBERED) this.tiers.clear();
      this.tiers.set(model, tiers);
    }
    return orderTiers(tiers, model, options);
  }

  /** Whether an enabled channel serves `model` but is out of rotation now (auto-disabled until a probe succeeds). */
  outOfRotation(model: string): boolean {
    return this.channels.some((channel) => channel.enabled && channel.autoDisabledReason !== null && channel.models.includes(model));
  }

  /** Every model some enabled channel serves, with the channel type that serves it first. */
  models(): Map<string, Channel> {
    const result = new Map<string, Channel>();
    for (const channel of this.channels) {
      if (!channel.enabled || channel.autoDisabledReason) continue;
      for (const model of channel.models) if (!result.has(model)) result.set(model, channel);
    }
    return result;
  }
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** What a channel is built from: every column but its health and timestamps. */
function rowFingerprint(row: ChannelRow): string {
  return JSON.stringify([
    row.name,
    row.type,
    row.baseUrl,
    row.apiKeyEncrypted,
    row.apiKeysEncrypted,
    row.disabledKeys,
    row.models,
    row.modelMap,
    row.priority,
    row.weight,
    row.enabled,
    row.autoDisabledReason,
    row.capabilities,
    row.prices,
    row.timeouts,
    row.settings,
  ]);
}
