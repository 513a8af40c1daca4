import { describe } from "node:test";
import { MemorySharedState } from "@/lib/state/memory-shared-state";
import { windowStateContract } from "../helpers/window-state-contract";

// One process: the memory store is both "processes".
describe("limit windows and leases in the memory shared state", () => {
  const state = new MemorySharedState();
  windowStateContract(() => ({ first: state, second: state }));
});
