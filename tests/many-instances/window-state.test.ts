import { describe } from "node:test";
import { twoRedisStates } from "../helpers/two-redis-states";
import { windowStateContract } from "../helpers/window-state-contract";

// Two Redis connections stand for two gateway processes.
const redis = twoRedisStates();

describe("limit windows and leases in Redis, across two connections", () => {
  windowStateContract(() => ({ first: redis.first, second: redis.second }));
});
