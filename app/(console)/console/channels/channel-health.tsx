import { Badge } from "@/app/_components/ui";
import type { ChannelJson } from "@/lib/channels/channel-service";

/** The channel's state in one badge and one reason; the circuit's state always. */
export function ChannelHealth({ channel }: { channel: ChannelJson }) {
  const circuit = channel.state?.circuit ?? "closed";
  return (
    <div className="space-y-1 text-xs break-words">
      <HealthBadge channel={channel} />
      <p className="text-zinc-500" data-testid="channel-circuit-state">
        Circuit {circuit}
      </p>
    </div>
  );
}

function Reason({ tone, children }: { tone: "red" | "amber"; children: string }) {
  return <p className={tone === "red" ? "text-red-600 dark:text-red-400" : "text-amber-700 dark:text-amber-400"}>{children}</p>;
}

function HealthBadge({ channel }: { channel: ChannelJson }) {
  if (!channel.enabled) return <Badge tone="zinc">Disabled</Badge>;
  if (channel.autoDisabledReason) {
    return (
      <div data-testid="channel-auto-disabled">
        <Badge tone="red">Disabled automatically</Badge>
        <Reason tone="red">{channel.autoDisabledReason}</Reason>
        <p className="text-zinc-500">Retried on a schedule; saving a new key re-enables it now.</p>
      </div>
    );
  }
  if (channel.state && channel.state.circuit !== "closed") {
    return (
      <div data-testid="channel-circuit">
        <Badge tone="amber">Circuit {channel.state.circuit}</Badge>
        {channel.state.reason && <Reason tone="amber">{channel.state.reason}</Reason>}
      </div>
    );
  }
  const cooling = Object.entries(channel.state?.models ?? {}).filter(([, model]) => model.circuit !== "closed" || model.coolDownUntil);
  if (cooling.length > 0) {
    return (
      <div>
        <Badge tone="amber">{cooling.length === 1 ? `${cooling[0]![0]} paused` : `${cooling.length} models paused`}</Badge>
        {cooling[0]![1].reason && <Reason tone="amber">{cooling[0]![1].reason}</Reason>}
      </div>
    );
  }
  if (channel.lastError) {
    return (
      <div data-testid="channel-failing">
        <Badge tone="red">Failing</Badge>
        <Reason tone="red">{channel.lastError}</Reason>
      </div>
    );
  }
  if (channel.lastLatencyMs !== null) return <Badge tone="green">OK · {channel.lastLatencyMs} ms</Badge>;
  return <Badge tone="zinc">Not used yet</Badge>;
}
