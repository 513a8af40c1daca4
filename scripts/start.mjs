// `npm start`: builds the console and server.ts only when needed, then runs the server in this same
// process (one process: one Ctrl-C, no second copy of Node in memory), so a second
// start is ready in seconds. PROCESSES=N (or `auto`, one per core) runs N such servers
// on one port through node:cluster, sharing the store: this launcher migrates the store
// and does the one-time initialisation first, so the workers never race over it.
import cluster from "node:cluster";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureBuild, PREPARE_BUNDLE, SERVER_BUNDLE } from "./ensure-build.mjs";

// A .env file beside package.json is read; variables already in the environment win.
if (fs.existsSync(".env")) process.loadEnvFile(".env");
process.env.NODE_ENV ??= "production";
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

const wanted = process.env.PROCESSES === "auto" ? os.availableParallelism() : Number(process.env.PROCESSES || 1);
if (!Number.isInteger(wanted) || wanted < 1) {
  process.stderr.write(`Gateway failed to start: PROCESSES must be a positive number or "auto" (got "${process.env.PROCESSES}")\n`);
  process.exit(1);
}

if (cluster.isPrimary) {
  stopWithNpm();
  try {
    await ensureBuild();
  } catch (error) {
    process.stderr.write(`Could not build the console: ${error.message}\n`);
    process.exit(1);
  }
}

if (cluster.isPrimary && wanted > 1) {
  await prepareOnce();
  superviseWorkers(wanted);
} else await runServer();

/** Migrations, secrets, the first admin and the setup code, before any worker exists. */
async function prepareOnce() {
  try {
    const { prepareDeployment } = await import(pathToFileURL(path.resolve(PREPARE_BUNDLE)).href);
    await prepareDeployment();
  } catch (error) {
    process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

/**
 * Under `npm start`, npm runs this through a shell, and a SIGTERM to npm (what a process
 * manager sends) stops npm and the shell without passing it on. When the process that
 * started this one goes away, the server in this process is told so (it names that, not a
 * signal nobody sent); the cluster primary hangs up on itself. Either starts a graceful stop,
 * and never turns one already under way (the same SIGTERM sent to the whole group) into a forced one.
 */
function stopWithNpm() {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    // The event's name is PARENT_GONE_EVENT in lib/http/graceful-shutdown.ts.
    if (!process.emit("gateway:parent-gone")) process.kill(process.pid, "SIGHUP");
  }, 500);
  watch.unref();
}

async function runServer() {
  try {
    // The compiled bundle: no TypeScript loader in production.
    await import(pathToFileURL(path.resolve(SERVER_BUNDLE)).href);
  } catch (error) {
    // Configuration errors surface here, while modules load: one message, no stack.
    process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}

/** The primary only forks, restarts crashed workers, and relays shutdown; workers serve. */
function superviseWorkers(count) {
  if (!process.env.REDIS_URL) {
    process.stderr.write(`PROCESSES=${count} without REDIS_URL: rate limits, reservations and circuits are counted per process.\n`);
  }
  let stopping = 0;
  let exitCode = 0;
  const fork = () => cluster.fork();
  for (let index = 0; index < count; index += 1) fork();
  cluster.on("exit", (worker, code) => {
    if (code) exitCode = code;
    if (stopping === 0 && code !== 1) {
      process.stderr.write(`worker ${worker.process.pid} exited (${code}); starting another\n`);
      fork();
      return;
    }
    // A worker that could not start (exit code 1: bad configuration, busy port) stops them all.
    if (stopping === 0) for (const other of Object.values(cluster.workers ?? {})) other?.send("shutdown");
    stopping ||= 1;
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
  });
  // Workers ignore the terminal's Ctrl-C (it reaches the whole process group); the primary
  // tells them once: the first signal drains, a second stops at once.
  const relay = () => {
    stopping += 1;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.send(stopping === 1 ? "shutdown" : "force");
  };
  process.on("SIGINT", relay);
  process.on("SIGTERM", relay);
  process.on("SIGHUP", () => {
    if (stopping === 0) relay();
  });
}
