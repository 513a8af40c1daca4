import type { Operation } from "@/lib/providers/operation";
import type { SharedState } from "@/lib/state/shared-state";

const TOPIC = "capability-missing";

/**
 * What the gateway learned a channel cannot do for a model (an OpenAI-compatible server
 * answering 404 on /responses), so the translated path is taken from then on: by every
 * process, through the shared state.
 */
export class LearnedCapabilities {
  private readonly missing = new Set<string>();

  constructor(private readonly shared: SharedState) {
    shared.subscribe((topic, message) => {
      if (topic === TOPIC) this.missing.add(String(message));
    });
  }

  lacks(channelId: string, model: string, operation: Operation): boolean {
    return this.missing.has(key(channelId, model, operation));
  }

  learnMissing(channelId: string, model: string, operation: Operation): void {
    const entry = key(channelId, model, operation);
    this.missing.add(entry);
    this.shared.publish(TOPIC, entry);
  }
}

const key = (channelId: string, model: string, operation: Operation) => `${channelId}\u0000${model}\u0000${operation}`;
