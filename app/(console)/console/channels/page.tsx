import { PageHeader } from "@/app/_components/ui";
import { listChannels } from "@/lib/channels/channel-service";
import { requireAdmin } from "@/lib/console/require-session";
import { providers } from "@/lib/providers/registry";
import { CHANNEL_TYPES } from "@/lib/routing/channel";
import { getRuntime } from "@/lib/runtime";
import { ChannelManager } from "./channel-manager";

export const dynamic = "force-dynamic";

export default async function ChannelsPage() {
  await requireAdmin();
  const channels = await listChannels(await getRuntime());
  const types = CHANNEL_TYPES.map((type) => ({ type, defaultBaseUrl: providers[type].defaultBaseUrl, requiresApiKey: providers[type].requiresApiKey }));
  return (
    <>
      <PageHeader title="Channels" description="Upstream providers. Requests go to the highest-priority enabled channel that lists the model." />
      <ChannelManager channels={channels} types={types} />
    </>
  );
}
