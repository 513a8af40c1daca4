import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "@playwright/test";

// Playwright drives the system's Chromium (Debian's `chromium` package); browsers are
// never downloaded. The binary is found on PATH, or given as CHROMIUM_PATH.
function findChromium(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const directory of (process.env.PATH ?? "").split(path.delimiter)) {
    for (const name of ["chromium", "chromium-browser"]) {
      const candidate = path.join(directory, name);
      if (fs.existsSync(candidate)) return candidate;
    }
  }
  throw new Error("Chromium not found: install the `chromium` package or set CHROMIUM_PATH.");
}

export default defineConfig({
  testDir: ".",
  outputDir: "./test-results",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  reporter: [["list"], ["json", { outputFile: "./test-results/results.json" }]],
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: findChromium(),
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
    trace: "retain-on-failure",
  },
});
