// The process entry: API routes on a fast node:http path, everything else (the
// console) through Next.js. See ../README.md for configuration.
import cluster from "node:cluster";
import http from "node:http";
import path from "node:path";
import v8 from "node:v8";
import { ConsoleApp } from "@/lib/http/console-app";
import { needsSetup } from "@/lib/console/users";
import { readSetupCode, SETUP_CODE_FILE } from "@/lib/auth/setup-code";
import { ADMIN_KEY_FILE } from "@/lib/crypto/secrets";
import { env } from "@/lib/env";
import { clientAddress, CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { handleShutdownSignals, InFlightRequests } from "@/lib/http/graceful-shutdown";
import { parseRequestUrl, serveApi } from "@/lib/http/serve-api";
import { logger } from "@/lib/logger";
import { RealtimeProxy, REALTIME_PATH } from "@/lib/realtime/realtime-proxy";
import { startTracing } from "@/lib/observability/tracing";
import { getRuntime, type Runtime } from "@/lib/runtime";

async function main(): Promise<void> {
  // V8 lets the old generation grow to up to four times what survived its last full
  // collection before collecting again: a peak of ~400 MB for ~40 MB live under the bench's
  // agent load. This flag sets that factor: three holds the peak near 340 MB. Not two
  // (300 MB): V8 counts the ArrayBuffer memory allocated since the last full collection
  // against that room, and the young bodies of agent-sized requests (32 MB of them between
  // two scavenges) then filled it every 110-130 requests of 300 KB, each time a full
  // collection: a sixth of such a relay's CPU (BENCHMARKS.md).
  // V8 reads this flag at each collection, so setting it now applies from here on.
  if (env.HEAP_GROWTH_PERCENT > 0) v8.setFlagsFromString(`--heap-growing-percent=${env.HEAP_GROWTH_PERCENT}`);
  const stopTracing = await startTracing();
  const runtime = await getRuntime();
  process.env.NEXTAUTH_SECRET ??= runtime.secrets.authSecret;

  const dev = env.NODE_ENV === "development";
  const consoleApp = new ConsoleApp({ dev, hostname: env.HOST, port: env.PORT });
  // Development serves pages with hot reload, so it loads at once; production loads Next on
  // the first console request, and a process that only serves the API never pays for it.
  if (dev) await consoleApp.load();

  const inFlight = new InFlightRequests();
  const server = http.createServer((request, response) => {
    inFlight.track(response);
    const url = parseRequestUrl(request.url);
    if (!url) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "The request target is not a valid path.", type: "invalid_request_error", param: null, code: "invalid_path" } }));
      return;
    }
    if (serveApi(request, response, url, runtime)) return;
    // Only the console needs the peer address (sign-in throttling); the API path skips it.
    request.headers[CLIENT_ADDRESS_HEADER] = clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"]);
    // Writes nobody serves were refused above; a malformed form post to a page is refused by proxy.ts.
    consoleApp.handle(request, response);
  });
  const realtime = new RealtimeProxy(runtime);
  server.on("upgrade", (request, socket, head) => {
    const url = parseRequestUrl(request.url);
    if (url?.pathname === REALTIME_PATH) realtime.handleUpgrade(request, socket, head, url);
    else if (dev) consoleApp.upgrade(request, socket, head);
    else socket.destroy();
  });
  // Longer than common load balancer idle timeouts, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // streams may run for minutes

  await listen(server);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : env.PORT;
  logger.debug({ port }, "gateway listening");
  // Test harnesses and process managers read the first line; the block under it is written
  // with it, so whoever sees the line sees the block.
  const block = !cluster.isWorker || cluster.worker?.id === 1 ? await banner(runtime, port) : "";
  process.stdout.write(`Gateway ready on http://localhost:${port}\n${block}`);

  handleShutdownSignals({
    server,
    inFlight,
    deadlineMs: env.SHUTDOWN_TIMEOUT_MS,
    closeSessions: () => realtime.close(),
    flushAndClose: once(async () => {
      await runtime.close();
      await stopTracing?.();
      await consoleApp.close();
    }),
    say: (line) => process.stderr.write(`${line}\n`),
  });
}

/** The start-up block under the ready line: where things are, and how to stop. */
async function banner(runtime: Runtime, port: number): Promise<string> {
  const origin = `http://localhost:${port}`;
  const keys = { encryptionKeys: [runtime.secrets.encryptionKey, ...runtime.secrets.previousEncryptionKeys] };
  const setupCode = (await needsSetup(runtime)) ? await readSetupCode(runtime.database, keys) : undefined;
  const adminKey = env.ADMIN_API_KEY ? "from ADMIN_API_KEY" : `in ${path.join(env.DATA_DIR, ADMIN_KEY_FILE)}`;
  return [
    // Each SDK's own base URL: the Anthropic and Gemini SDKs add their version segment themselves.
    `  OpenAI SDK:    base URL ${origin}/v1`,
    `  Anthropic SDK: base URL ${origin} (the SDK adds /v1)`,
    `  Gemini SDK:    base URL ${origin} (the SDK adds /v1beta)`,
    `  Console:       ${origin}/console${setupCode ? ": waiting for setup" : ""}`,
    ...(setupCode ? [`  Setup code:    ${setupCode} (also in ${path.join(env.DATA_DIR, SETUP_CODE_FILE)}): the setup page asks for it to create the first admin`] : []),
    `  Admin API key: ${adminKey}`,
    `  Store:         ${runtime.databaseKind === "sqlite" ? `SQLite in ${env.DATA_DIR}` : "PostgreSQL (DATABASE_URL)"}${env.REDIS_URL ? ", Redis (REDIS_URL)" : ""}`,
    ...(env.REQUEST_LOG === "off" ? ["  Request log:   off (REQUEST_LOG): no per-request rows; Logs, charts and per-period spend limits see nothing"] : []),
    "  Stop:          Ctrl-C, or one SIGTERM (open requests finish first; a second signal stops at once)",
    "",
  ].join("\n");
}

function listen(server: http.Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") reject(new Error(`port ${env.PORT} on ${env.HOST} is in use: stop what holds it, or set PORT`));
      else if (error.code === "EACCES") reject(new Error(`no permission to listen on port ${env.PORT}: set PORT to 1024 or above`));
      else reject(error);
    });
    server.listen(env.PORT, env.HOST, resolve);
  });
}

function once(step: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= step());
}

main().catch((error) => {
  process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
