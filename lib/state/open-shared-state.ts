import { MemorySharedState } from "./memory-shared-state";
import { RedisSharedState } from "./redis-shared-state";
import type { SharedState } from "./shared-state";

/** REDIS_URL set: Redis, shared by every process; otherwise this process's memory. */
export async function openSharedState(redisUrl: string | undefined): Promise<SharedState> {
  return redisUrl ? RedisSharedState.connect(redisUrl) : new MemorySharedState();
}
