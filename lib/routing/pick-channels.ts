import { z } from "zod";
import { channelPrice } from "@/lib/catalogue/channel-price";
import type { Channel } from "./channel";

/** How the channels of one priority tier are ordered for a model (a model record's `strategy`). */
export const STRATEGIES = ["weighted", "latency", "least-busy", "cost"] as const;
export const strategySchema = z.enum(STRATEGIES);
export type Strategy = z.infer<typeof strategySchema>;

/** What the strategies read about channels; routing-stats.ts keeps them (per process). */
export interface RoutingSignals {
  /** The moving average of time to first token on this channel for this model, or undefined when unknown or stale. */
  latencyMs(channelId: string, model: string): number | undefined;
  /** Requests this process has in flight on the channel. */
  inFlight(channelId: string): number;
}

export interface PickOptions {
  strategy?: Strategy;
  signals?: RoutingSignals;
  random?: () => number;
}

/** Share of `latency` picks that go to a random channel, so one that recovered is measured again. */
export const LATENCY_EXPLORATION = 0.05;

type TierOrder = (group: Channel[], model: string, signals: RoutingSignals | undefined, random: () => number) => Channel[];

/** One priority's channels for a model: those with weight, and the standbys (weight 0). */
export interface Tier {
  active: Channel[];
  standby: Channel[];
}

/**
 * The enabled (and not automatically disabled) channels that serve `model`, grouped by
 * priority, highest first. It depends only on the channels, so the channel cache keeps it
 * per model until they change; only the order within a tier is drawn per request.
 */
export function channelTiers(channels: readonly Channel[], model: string): Tier[] {
  const byPriority = new Map<number, Tier>();
  for (const channel of channels) {
    if (!channel.enabled || channel.autoDisabledReason || !channel.models.includes(model)) continue;
    let tier = byPriority.get(channel.priority);
    if (!tier) byPriority.set(channel.priority, (tier = { active: [], standby: [] }));
    (channel.weight > 0 ? tier.active : tier.standby).push(channel);
  }
  return [...byPriority.entries()].sort((a, b) => b[0] - a[0]).map((entry) => entry[1]);
}

/**
 * The channels of `tiers` in the order to try them: highest priority first, and within one
 * priority by the model's strategy (a weighted random order by default). Weight 0 is a
 * standby under every strategy: tried only after its peers.
 */
export function orderTiers(tiers: readonly Tier[], model: string, options: PickOptions = {}): Channel[] {
  const random = options.random ?? Math.random;
  const order = TIER_ORDERS[options.strategy ?? "weighted"];
  // The common case, one channel: no drawing, one array.
  if (tiers.length === 1 && tiers[0]!.active.length + tiers[0]!.standby.length === 1) return [...tiers[0]!.active, ...tiers[0]!.standby];
  const ordered: Channel[] = [];
  for (const tier of tiers) ordered.push(...order(tier.active, model, options.signals, random), ...weightedOrder(tier.standby, random));
  return ordered;
}

/** Both at once, for a list of channels at hand. */
export function pickChannels(channels: readonly Channel[], model: string, options: PickOptions = {}): Channel[] {
  return orderTiers(channelTiers(channels, model), model, options);
}

const TIER_ORDERS: Record<Strategy, TierOrder> = {
  weighted: (group, _model, _signals, random) => weightedOrder(group, random),
  latency: fastestOfTwo,
  "least-busy": (group, _model, signals, random) => sortedBy(weightedOrder(group, random), (channel) => signals?.inFlight(channel.id) ?? 0),
  cost: (group, model, _signals, random) => sortedBy(weightedOrder(group, random), (channel) => pricePerMillion(channel, model)),
};

/**
 * Power of two choices: two channels drawn by weight, the one with the lower average time to
 * first token first (an unmeasured one counts as fastest, so it gets measured), then the rest
 * fastest first. A small share of picks is random instead, so a slow channel that recovered is seen.
 */
function fastestOfTwo(group: Channel[], model: string, signals: RoutingSignals | undefined, random: () => number): Channel[] {
  const drawn = weightedOrder(group, random);
  if (drawn.length < 2 || !signals || random() < LATENCY_EXPLORATION) return drawn;
  const latency = (channel: Channel) => signals.latencyMs(channel.id, model) ?? 0;
  const [first, second, ...rest] = drawn as [Channel, Channel, ...Channel[]];
  const [winner, loser] = latency(second) < latency(first) ? [second, first] : [first, second];
  return [winner, ...sortedBy([loser, ...rest], latency)];
}

/** Input plus output price per million tokens (the channel's own, else the catalogue's); a channel without a price goes after the priced ones. */
function pricePerMillion(channel: Channel, model: string): number {
  const price = channelPrice(channel, model)?.price;
  return price ? price.input + price.output : Number.POSITIVE_INFINITY;
}

/** A stable sort: ties keep the (weighted random) order they came in. */
function sortedBy(channels: Channel[], key: (channel: Channel) => number): Channel[] {
  return channels
    .map((channel, index) => ({ channel, index, key: key(channel) }))
    .sort((a, b) => a.key - b.key || a.index - b.index)
    .map((entry) => entry.channel);
}

function weightedOrder(group: Channel[], random: () => number): Channel[] {
  const remaining = [...group];
  const ordered: Channel[] = [];
  while (remaining.length > 0) {
    const total = remaining.reduce((sum, channel) => sum + Math.max(channel.weight, 0), 0);
    let index = 0;
    if (total > 0) {
      let point = random() * total;
      index = remaining.findIndex((channel) => (point -= Math.max(channel.weight, 0)) < 0);
      if (index < 0) index = remaining.length - 1;
    }
    ordered.push(remaining.splice(index, 1)[0]!);
  }
  return ordered;
}
