// Runs `next build` only when the console's sources changed since the last build.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import esbuild from "esbuild";

const STAMP = path.join(".next", "gateway-source-hash");
const INPUTS = ["app", "lib", "public", "server.ts", "proxy.ts", "next.config.mjs", "postcss.config.mjs", "tsconfig.json", "package-lock.json"];
/** server.ts compiled to one JavaScript module: production runs it without a TypeScript loader. */
export const SERVER_BUNDLE = path.join("dist", "server.mjs");
/** lib/deployment/prepare-deployment.ts compiled: the launcher migrates and initialises once before it forks workers. */
export const PREPARE_BUNDLE = path.join("dist", "prepare.mjs");
const SKIP = new Set([path.join("lib", "db", "generated")]);

function hashSources() {
  const hash = createHash("sha256");
  const visit = (entry) => {
    if (!fs.existsSync(entry) || SKIP.has(entry)) return;
    if (fs.statSync(entry).isDirectory()) {
      for (const name of fs.readdirSync(entry).sort()) visit(path.join(entry, name));
    } else {
      hash.update(entry).update("\0").update(fs.readFileSync(entry)).update("\0");
    }
  };
  INPUTS.forEach(visit);
  return hash.digest("hex");
}

const LOCK = ".next-build.lock";
const isCurrent = (wanted) =>
  fs.existsSync(path.join(".next", "BUILD_ID")) &&
  fs.existsSync(SERVER_BUNDLE) &&
  fs.existsSync(PREPARE_BUNDLE) &&
  fs.existsSync(STAMP) &&
  fs.readFileSync(STAMP, "utf8") === wanted;

/** Several processes started together in one directory build once: the others wait for it. */
function takeBuildLock() {
  const started = Date.now();
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      return true;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      // A lock older than a build can take was left by a process that died.
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 15 * 60_000) fs.rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() - started > 15 * 60_000) return false;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
}

export async function ensureBuild() {
  const wanted = hashSources();
  if (isCurrent(wanted)) return;
  if (!takeBuildLock()) throw new Error(`Another process holds ${LOCK}; remove it if no build is running.`);
  try {
    if (isCurrent(wanted)) return; // built by the process that held the lock
    await build(wanted);
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

async function build(wanted) {
  process.stdout.write("Building the console and the server (first start, or the sources changed): a minute or two, once.\n");
  const status = await runNextBuild();
  if (status !== 0) throw new Error(`next build failed (exit ${status ?? "signal"})`);
  // Packages stay imports (resolved from node_modules); the project's own code, path
  // aliases included, is bundled. The request log's writer thread runs a script of its
  // own, found beside the server bundle.
  esbuild.buildSync({
    entryPoints: { server: "server.ts", prepare: "lib/deployment/prepare-deployment.ts", "sqlite-log-worker": "lib/db/sqlite-log-worker.ts" },
    outdir: path.dirname(SERVER_BUNDLE),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: "tsconfig.json",
    logLevel: "warning",
  });
  fs.writeFileSync(STAMP, wanted);
}

/**
 * `next build` with its progress on screen, minus two blocks that read wrong at start-up:
 * the experiments list (a disabled flag is marked with a red-looking cross) and the table
 * of every route. Errors pass through untouched.
 */
function runNextBuild() {
  const child = spawn(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  const filter = buildOutputFilter();
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ]) {
    let pending = "";
    from.setEncoding("utf8");
    from.on("data", (chunk) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop();
      for (const line of lines) if (filter(line)) to.write(`${line}\n`);
    });
    from.on("end", () => {
      if (pending && filter(pending)) to.write(pending);
    });
  }
  // A signal that stops the launcher mid-build stops the build too, rather than orphan it.
  let stoppedBy = null;
  const forward = (signal) => {
    stoppedBy = signal;
    child.kill(signal);
  };
  const signals = ["SIGTERM", "SIGINT", "SIGHUP"];
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      for (const signal of signals) process.off(signal, forward);
      if (stoppedBy) reject(new Error(`stopped by ${stoppedBy}`));
      else resolve(code);
    });
  });
}

/** A line filter for `next build`'s output: false for the lines to leave out. */
export function buildOutputFilter() {
  let skipping = null;
  return (line) => {
    const plain = line.replace(/\u001b\[[0-9;]*m/g, "");
    if (/^- Experiments/.test(plain)) skipping = "experiments";
    else if (/^Route \(/.test(plain)) skipping = "routes";
    if (skipping === "experiments") {
      if (plain.trim() === "" || /^- Experiments/.test(plain) || /^\s+[⨯✓·]/.test(plain)) return false;
      skipping = null;
    }
    if (skipping === "routes") {
      // The table (box-drawing lines), blank lines and the legend of its symbols.
      if (plain.trim() === "" || /^(Route \(|[┌├└│]|\s|[○ƒ●◐λ]\s+\()/.test(plain)) return false;
      skipping = null;
    }
    return true;
  };
}
