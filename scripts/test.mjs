// `npm test`: unit tests, then integration tests that start the real server. Builds
// the console first when needed (the server serves it).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureBuild } from "./ensure-build.mjs";

const files = (directory) =>
  fs.existsSync(directory)
    ? fs.readdirSync(directory).filter((name) => name.endsWith(".test.ts")).sort().map((name) => path.join(directory, name))
    : [];

const typecheck = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], { stdio: "inherit" });
if (typecheck.status !== 0) {
  process.stdout.write("0 passed, 1 failed\n");
  process.exit(1);
}
ensureBuild();
const only = process.argv.slice(2);
const targets = only.length > 0 ? only : [...files("tests/unit"), ...files("tests/integration")];
const result = spawnSync(
  process.execPath,
  [
    "--import", "tsx",
    "--test",
    "--test-concurrency=2",
    "--test-reporter=spec", "--test-reporter-destination=stdout",
    "--test-reporter=./scripts/summary-reporter.mjs", "--test-reporter-destination=stdout",
    ...targets,
  ],
  { stdio: "inherit", env: { ...process.env, NODE_ENV: "test", NEXT_TELEMETRY_DISABLED: "1" } },
);
process.exit(result.status ?? 1);
