import type http from "node:http";
import type { Duplex } from "node:stream";
import { logger } from "@/lib/logger";

type NextApp = ReturnType<typeof import("next").default>;

/**
 * The console's Next.js server, loaded on first use: importing and preparing Next costs
 * tens of megabytes that a process serving only the API never needs. Requests that arrive
 * while it loads wait for it (their bodies stay unread until then).
 */
export class ConsoleApp {
  private loading: Promise<NextApp> | undefined;
  private handler: ((request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>) | undefined;

  constructor(private readonly options: { dev: boolean; hostname: string; port: number }) {}

  load(): Promise<NextApp> {
    return (this.loading ??= (async () => {
      const { default: next } = await import("next");
      const app = next({ dev: this.options.dev, dir: process.cwd(), hostname: this.options.hostname, port: this.options.port });
      await app.prepare();
      this.handler = app.getRequestHandler();
      return app;
    })());
  }

  handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    if (this.handler) {
      void this.handler(request, response);
      return;
    }
    this.load().then(
      () => void this.handler!(request, response),
      (error: unknown) => {
        logger.error({ err: error }, "the console could not be loaded");
        if (response.headersSent) return response.destroy();
        response.writeHead(503, { "content-type": "text/plain; charset=utf-8" });
        response.end("The console could not be loaded; see the server log.\n");
      },
    );
  }

  /** Hot reload's WebSocket in development. */
  upgrade(request: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    this.load().then(
      (app) => void app.getUpgradeHandler?.()(request, socket, head),
      () => socket.destroy(),
    );
  }

  async close(): Promise<void> {
    if (!this.loading) return;
    const app = await this.loading.catch(() => undefined);
    await app?.close?.();
  }
}
