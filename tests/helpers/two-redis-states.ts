import { after, before } from "node:test";
import { RedisSharedState } from "@/lib/state/redis-shared-state";
import { sharedServices } from "./start-gateway";

/**
 * Two connections to the test Redis, standing for two gateway processes: opened before the
 * file's tests and closed after them. Read `first` and `second` inside tests (they are set by then).
 */
export function twoRedisStates(): { readonly first: RedisSharedState; readonly second: RedisSharedState } {
  let first: RedisSharedState | undefined;
  let second: RedisSharedState | undefined;
  before(async () => {
    const services = sharedServices();
    if (!services) throw new Error("This suite needs TEST_POSTGRES_URL and TEST_REDIS_URL: run it through `npm test`.");
    first = await RedisSharedState.connect(services.redisUrl);
    second = await RedisSharedState.connect(services.redisUrl);
  });
  after(async () => {
    await first?.close();
    await second?.close();
  });
  return {
    get first() {
      return first!;
    },
    get second() {
      return second!;
    },
  };
}
