import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

// Starts the console's build under `next start`, the other entry the API is reachable
// through (Next's router and the generated route files under app/), on its own data.

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface NextEntry {
  url: string;
  adminKey: string;
  admin<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export async function startNextEntry(extraEnv: Record<string, string> = {}): Promise<NextEntry> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-next-test-"));
  const port = await freePort();
  const adminKey = `admin-${randomBytes(16).toString("hex")}`;
  const child: ChildProcess = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      REDIS_URL: "",
      ADMIN_API_KEY: adminKey,
      LOG_LEVEL: "warn",
      MOCK_STREAM_DELAY_MS: "0",
      LOG_FLUSH_INTERVAL_MS: "50",
      NEXT_TELEMETRY_DISABLED: "1",
      ...extraEnv,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (data) => (output += data));
  child.stderr!.on("data", (data) => (output += data));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}:\n${output}`);
    const ready = await fetch(`${url}/api/health`).then(
      (response) => response.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`next start did not answer /api/health:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    adminKey,
    async admin(method, route, body) {
      const response = await fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
