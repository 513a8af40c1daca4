import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
// @ts-expect-error: a plain .mjs script without types
import { buildOutputFilter } from "../../scripts/ensure-build.mjs";

// What `npm start` shows of the first build: Next's progress, without the experiments list
// (a disabled flag reads as a red error) and without the table of every route.

test("the build's progress stays; the experiments list and the route table go", () => {
  const raw = fs.readFileSync(path.join(import.meta.dirname, "..", "fixtures", "next", "build-output.txt"), "utf8");
  const keep = buildOutputFilter() as (line: string) => boolean;
  const shown = raw.split("\n").filter(keep).join("\n");
  assert.doesNotMatch(shown, /⨯|preloadEntriesOnStart|Experiments/);
  assert.doesNotMatch(shown, /Route \(app\)|[┌├└]|\(Static\)|\(Dynamic\)/);
  for (const progress of ["Creating an optimized production build", "Compiled successfully", "Finished writing to filesystem cache"]) {
    assert.match(shown, new RegExp(progress));
  }
  assert.ok(shown.split("\n").filter((line) => line.trim()).length <= 12, shown);
});

test("an error is never filtered out", () => {
  const keep = buildOutputFilter() as (line: string) => boolean;
  const lines = ["Route (app)", "├ ƒ /", "Failed to compile.", "./app/page.tsx:3:1", "Type error: nope"];
  assert.deepEqual(lines.filter(keep), ["Failed to compile.", "./app/page.tsx:3:1", "Type error: nope"]);
});
