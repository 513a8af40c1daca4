import { after, before, describe } from "node:test";
import { RedisSharedState } from "@/lib/state/redis-shared-state";
import { sharedServices } from "../helpers/start-gateway";
import { windowStateContract } from "../helpers/window-state-contract";

// Two Redis connections stand for two gateway processes.
let first: RedisSharedState;
let second: RedisSharedState;

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

describe("limit windows and leases in Redis, across two connections", () => {
  windowStateContract(() => ({ first, second }));
});
