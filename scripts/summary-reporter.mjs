// A node:test reporter that ends the run with one plain line: `N passed, N failed`.
// With SUMMARY_FILE set it also writes the counts there, for scripts/test.mjs to combine.
import fs from "node:fs";

export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.data?.details?.type === "suite") continue;
    if (event.type === "test:pass" && !event.data.skip && !event.data.todo) passed += 1;
    if (event.type === "test:fail") failed += 1;
  }
  if (process.env.SUMMARY_FILE) fs.writeFileSync(process.env.SUMMARY_FILE, JSON.stringify({ passed, failed }));
  yield `${passed} passed, ${failed} failed\n`;
}
