// The process entry: API routes on a fast node:http path, everything else (the
// console) through Next.js. See ../README.md for configuration.
import http from "node:http";
import next from "next";
import { env } from "@/lib/env";
import { matchApiRoute } from "@/lib/http/api-routes";
import { toApiRequest, writeApiResponse } from "@/lib/http/node-adapter";
import { logger } from "@/lib/logger";
import { RealtimeProxy, REALTIME_PATH } from "@/lib/realtime/realtime-proxy";
import { getRuntime } from "@/lib/runtime";

async function main(): Promise<void> {
  const runtime = await getRuntime();
  process.env.NEXTAUTH_SECRET ??= runtime.secrets.authSecret;

  const dev = env.NODE_ENV === "development";
  const app = next({ dev, dir: process.cwd(), hostname: env.HOST, port: env.PORT });
  await app.prepare();
  const handleNext = app.getRequestHandler();

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://gateway.local");
    const route = matchApiRoute(request.method ?? "GET", url.pathname);
    if (!route) {
      void handleNext(request, response);
      return;
    }
    route
      .handler(toApiRequest(request, response, url, route.params))
      .then((apiResponse) => writeApiResponse(response, apiResponse))
      .catch((error) => {
        logger.error({ err: error }, "unhandled API failure");
        if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: "Internal error", type: "server_error", param: null, code: null } }));
      });
  });
  const realtime = new RealtimeProxy(runtime);
  const handleNextUpgrade = dev ? app.getUpgradeHandler?.() : undefined;
  server.on("upgrade", (request, socket, head) => {
    const url = new URL(request.url ?? "/", "http://gateway.local");
    if (url.pathname === REALTIME_PATH) realtime.handleUpgrade(request, socket, head, url);
    else if (handleNextUpgrade) void handleNextUpgrade(request, socket, head);
    else socket.destroy();
  });
  // Longer than common load balancer idle timeouts, so they close first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0; // streams may run for minutes

  server.listen(env.PORT, env.HOST, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : env.PORT;
    logger.info({ port }, "gateway listening");
    // Test harnesses and process managers read this line.
    process.stdout.write(`Gateway ready on http://localhost:${port}\n`);
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, "shutting down");
    server.close();
    server.closeIdleConnections();
    realtime.close();
    await runtime.close();
    await app.close?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((error) => {
  process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
