import assert from "node:assert/strict";
import { test } from "node:test";
import { editDistance, nearestNames, unknownModelMessage } from "@/lib/routing/nearest-names";

// An unknown model's 404 helps: the names it was probably meant to be, and what the key may use.

test("a swap of two neighbours is one edit; unrelated names are far", () => {
  assert.equal(editDistance("fake-gtp", "fake-gpt"), 1);
  assert.equal(editDistance("gpt-4o", "gpt-4o-mini"), 5);
  assert.equal(editDistance("", "abc"), 3);
});

test("the nearest names, closest first, case aside; nothing for a name far from all", () => {
  const names = ["fake-gpt", "gpt-4o-mini", "claude-sonnet-4", "mock-chat"];
  assert.deepEqual(nearestNames("fake-gtp", names), ["fake-gpt"]);
  assert.deepEqual(nearestNames("Claude-Sonet-4", names), ["claude-sonnet-4"]);
  assert.deepEqual(nearestNames("llama-3-70b", names), []);
});

test("the message lists at most twenty names, and says how many more", () => {
  const many = Array.from({ length: 300 }, (_, index) => `model-${String(index).padStart(3, "0")}`);
  const message = unknownModelMessage("model-0x1", many);
  assert.match(message, /^The model 'model-0x1' does not exist or you do not have access to it\. Did you mean /);
  assert.match(message, /and 280 more \(GET \/v1\/models lists them all\)\.$/);
  assert.equal(message.split(", ").length, 20);
  assert.match(unknownModelMessage("x", []), /No channel serves any model this key may use\./);
});
