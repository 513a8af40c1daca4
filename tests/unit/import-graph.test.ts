import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import madge from "madge";

// lib/ has no import circles: a circle is two modules that cannot be understood (or
// loaded) one without the other. Prisma's generated client is its own business.

const ROOT = path.resolve(import.meta.dirname, "..", "..");

test("no import circle in lib/", { timeout: 120_000 }, async () => {
  const graph = await madge(path.join(ROOT, "lib"), {
    fileExtensions: ["ts", "tsx"],
    tsConfig: path.join(ROOT, "tsconfig.json"),
    excludeRegExp: [/db[\\/]generated/],
  });
  assert.deepEqual(graph.circular(), []);
});
