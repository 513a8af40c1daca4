import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Starts the real server (server.ts, the same entry `npm start` runs) in a child
// process with its own data directory, and gives tests an admin API client.

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface Gateway {
  url: string;
  dataDir: string;
  adminKey: string;
  output: () => string;
  admin<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

export async function startGateway(extraEnv: Record<string, string> = {}): Promise<Gateway> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-test-"));
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      ADMIN_API_KEY: "",
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

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${output}`)), 60_000);
    const check = () => {
      const match = /Gateway ready on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${output}`));
    });
  });
  const adminKey = extraEnv.ADMIN_API_KEY || fs.readFileSync(path.join(dataDir, "admin-api-key"), "utf8").trim();

  return {
    url,
    dataDir,
    adminKey,
    output: () => output,
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
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
