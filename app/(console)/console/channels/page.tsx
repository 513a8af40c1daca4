import { PageHeader } from "@/app/_components/ui";
import { listChannels } from "@/lib/channels/channel-service";
import { channelStats } from "@/lib/console/channel-stats";
import { lastDays } from "@/lib/console/usage-stats";
import { requireAdmin } from "@/lib/console/require-session";
import { CHANNEL_TYPE_LABELS } from "@/lib/console/channel-type-labels";
import { providers } from "@/lib/providers/registry";
import { CHANNEL_TYPES } from "@/lib/routing/channel";
import { getRuntime } from "@/lib/runtime";
import { ChannelManager } from "./channel-manager";

export const dynamic = "force-dynamic";

export default async function ChannelsPage() {
  await requireAdmin("/console/channels");
  const runtime = await getRuntime();
  // The last 30 days, from the hourly rollups.
  const [channels, usage] = await Promise.all([listChannels(runtime), channelStats(runtime, lastDays(30))]);
  const types = CHANNEL_TYPES.map((type) => ({
    type,
    label: CHANNEL_TYPE_LABELS[type],
    defaultBaseUrl: providers[type].defaultBaseUrl,
    baseUrlHelp: providers[type].baseUrlHelp,
    versionSegment: providers[type].versionSegment ?? null,
    requiresApiKey: providers[type].requiresApiKey,
    apiKeyHelp: providers[type].apiKeyHelp ?? null,
    canListModels: providers[type].listModels !== undefined,
    settings: providers[type].settings?.fields ?? [],
  }));
  const views = channels.map((channel) => {
    const stats = usage.get(channel.id);
    return { ...channel, usage: stats ? { requests: stats.requests, costUsd: stats.costUsd, cachedShare: stats.cachedShare } : null };
  });
  return (
    <>
      <PageHeader
        title="Channels"
        description="Upstream providers. Requests go to the highest-priority enabled channel that lists the model. Saving a channel sends it one test request first."
      />
      <ChannelManager channels={views} types={types} />
    </>
  );
}
