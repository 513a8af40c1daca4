// A node:test reporter that ends the run with one plain line: `N passed, N failed`.
export default async function* summary(source) {
  let passed = 0;
  let failed = 0;
  for await (const event of source) {
    if (event.data?.details?.type === "suite") continue;
    if (event.type === "test:pass" && !event.data.skip && !event.data.todo) passed += 1;
    if (event.type === "test:fail") failed += 1;
  }
  yield `${passed} passed, ${failed} failed\n`;
}
