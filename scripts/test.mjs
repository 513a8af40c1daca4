// `npm test`: lint and format check, type-check, unit tests, integration tests that start the real server,
// then the console's end-to-end tests in Chromium. Builds the console first when needed.
// Ends with one line for the whole run: `N passed, N failed`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureBuild } from "./ensure-build.mjs";
import { startTestServices } from "./test-services.mjs";

const run = (command, args, env = {}) => spawnSync(command, args, { stdio: "inherit", env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", ...env } }).status ?? 1;
const files = (directory, suffix) =>
  fs.existsSync(directory)
    ? fs
        .readdirSync(directory)
        .filter((name) => name.endsWith(suffix))
        .sort()
        .map((name) => path.join(directory, name))
    : [];

const only = process.argv.slice(2);
const totals = { passed: 0, failed: 0 };
const finish = () => {
  process.stdout.write(`${totals.passed} passed, ${totals.failed} failed\n`);
  process.exit(totals.failed > 0 ? 1 : 0);
};

// Lint and format (Biome), then types: both in seconds, before anything is built.
if (run(process.execPath, ["node_modules/@biomejs/biome/bin/biome", "check", "--max-diagnostics=50", "."]) !== 0) {
  process.stdout.write("Lint or format check failed: `npm run format` fixes formatting and safe lint fixes.\n");
  totals.failed += 1;
  finish();
}
if (run(process.execPath, ["node_modules/typescript/bin/tsc", "--noEmit", "-p", "."]) !== 0) {
  totals.failed += 1;
  finish();
}
await ensureBuild();

function runNodeTests(targets, env = {}) {
  if (targets.length === 0) return;
  const summaryFile = path.join(os.tmpdir(), `gateway-test-summary-${process.pid}.json`);
  const status = run(
    process.execPath,
    [
      "--import",
      "tsx",
      "--test",
      "--test-concurrency=2",
      "--test-reporter=spec",
      "--test-reporter-destination=stdout",
      "--test-reporter=./scripts/summary-reporter.mjs",
      "--test-reporter-destination=stdout",
      ...targets,
    ],
    { NODE_ENV: "test", SUMMARY_FILE: summaryFile, ...env },
  );
  if (fs.existsSync(summaryFile)) {
    const counts = JSON.parse(fs.readFileSync(summaryFile, "utf8"));
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    fs.rmSync(summaryFile);
  } else if (status !== 0) totals.failed += 1;
}

// Pass 1: unit tests, the integration suite on the embedded SQLite store (one process), and
// a bounded fuzz run (`npm run fuzz` runs a longer one).
// Pass 2: the integration suite again, plus the many-instance suite, with every gateway
// started as two processes on a real PostgreSQL and a real Redis.
const selected = only.filter((file) => !file.endsWith(".spec.ts"));
const sqliteTargets = only.length
  ? selected.filter((file) => !file.includes("many-instances"))
  : [...files("tests/unit", ".test.ts"), ...files("tests/integration", ".test.ts"), ...files("tests/fuzz", ".test.ts")];
const sharedTargets = only.length
  ? selected.filter((file) => file.includes("many-instances") || (process.env.TEST_SHARED === "1" && file.includes("integration")))
  : [...files("tests/integration", ".test.ts"), ...files("tests/many-instances", ".test.ts")];
// The newest majors of the OpenAI and Gemini SDKs declare Node 22, so the project's install
// keeps to the majors clean on Node 20; the lanes that test the newest ones install them apart,
// once, here rather than in two test files at the same moment (tests/helpers/newest-sdks.ts).
if (run("npm", ["install", "--prefix", "tests/newest-sdks", "--no-audit", "--no-fund", "--loglevel=error"]) !== 0) {
  process.stdout.write("Could not install tests/newest-sdks: run `npm install --prefix tests/newest-sdks`.\n");
  totals.failed += 1;
  finish();
}
runNodeTests(sqliteTargets);
if (sharedTargets.length) {
  let services;
  try {
    services = await startTestServices();
  } catch (error) {
    process.stdout.write(`${error instanceof Error ? error.message : String(error)}\n`);
    totals.failed += 1;
  }
  if (services) {
    process.stdout.write("\n# Many-instance pass: two gateway processes on PostgreSQL + Redis\n");
    try {
      runNodeTests(sharedTargets, { TEST_POSTGRES_URL: services.postgresUrl, TEST_REDIS_URL: services.redisUrl });
    } finally {
      services.stop();
    }
  }
}

const e2eTargets = only.length ? only.filter((file) => file.endsWith(".spec.ts")).map((file) => path.basename(file)) : [];
if (!only.length || e2eTargets.length) {
  const status = run(process.execPath, ["node_modules/@playwright/test/cli.js", "test", "-c", "tests/e2e/playwright.config.ts", ...e2eTargets]);
  const resultsFile = "tests/e2e/test-results/results.json";
  if (fs.existsSync(resultsFile)) {
    const stats = JSON.parse(fs.readFileSync(resultsFile, "utf8")).stats ?? {};
    totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
    totals.failed += stats.unexpected ?? 0;
    if (status !== 0 && !stats.unexpected) totals.failed += 1;
  } else if (status !== 0) totals.failed += 1;
}
finish();
