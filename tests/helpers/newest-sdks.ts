import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type * as Genai from "@google/genai";
import type OpenAI from "openai";

// The newest majors of the OpenAI and Gemini SDKs (openai 7, @google/genai 3) declare Node 22,
// while the project supports Node 20.19: its own install keeps to the majors that are clean on
// 20 (openai 6, @google/genai 2), and the test lanes for the newest majors install them here,
// apart, from tests/newest-sdks/package-lock.json, the first time they are wanted.

const DIRECTORY = path.resolve(import.meta.dirname, "..", "newest-sdks");
const PACKAGES = ["openai", "@google/genai"];

/** Installs tests/newest-sdks once (`npm test` does it before the suite; a lone test file does it itself). */
export function installNewestSdks(): void {
  if (PACKAGES.every((name) => fs.existsSync(path.join(DIRECTORY, "node_modules", name, "package.json")))) return;
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: DIRECTORY, stdio: ["ignore", "inherit", "inherit"] });
}

/** openai 7 and @google/genai 3, typed as the majors the project installs (their calls used here are the same). */
export async function newestSdks(): Promise<{ OpenAI: typeof OpenAI; genai: typeof Genai }> {
  installNewestSdks();
  const require = createRequire(path.join(DIRECTORY, "package.json"));
  const load = async (name: string) => import(pathToFileURL(require.resolve(name)).href);
  const openai = await load("openai");
  return { OpenAI: openai.OpenAI ?? openai.default, genai: await load("@google/genai") };
}
