import type { Channel } from "./channel";

/**
 * Orders the enabled (and not automatically disabled) channels that serve `model` for trying: highest priority first,
 * and within one priority a weighted random order (weight 0 is a standby that is only
 * tried after its weighted peers).
 */
export function pickChannels(channels: readonly Channel[], model: string, random: () => number = Math.random): Channel[] {
  const candidates = channels.filter((channel) => channel.enabled && !channel.autoDisabledReason && channel.models.includes(model));
  const byPriority = new Map<number, Channel[]>();
  for (const channel of candidates) {
    const group = byPriority.get(channel.priority);
    if (group) group.push(channel);
    else byPriority.set(channel.priority, [channel]);
  }
  const priorities = [...byPriority.keys()].sort((a, b) => b - a);
  return priorities.flatMap((priority) => weightedOrder(byPriority.get(priority)!, random));
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
