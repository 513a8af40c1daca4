import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { startRoundRobinProxy } from "./round-robin-proxy";

// Starts the real server (server.ts, the same entry `npm start` runs) in child processes
// with their own data, and gives tests an admin API client.
//
// By default: one process on its own SQLite file. When the test run provides
// TEST_POSTGRES_URL and TEST_REDIS_URL (scripts/test.mjs does, for its second pass):
// two processes on a fresh PostgreSQL database and Redis, started at the same moment,
// behind a round-robin load balancer, as a many-instance deployment runs.

const ROOT = path.resolve(import.meta.dirname, "..", "..");

export interface Gateway {
  url: string;
  dataDir: string;
  adminKey: string;
  /** Each process's own address (one, or two in the many-instance pass). */
  instances: string[];
  /** Their process ids, in the same order. */
  pids: number[];
  output: () => string;
  /** The one-time code /setup asks for while no account exists (what start-up wrote to DATA_DIR/setup-code). */
  setupCode: () => string;
  /** Token and channel keys this test handed to or got from the gateway; stop() checks none leaked. */
  secrets: Set<string>;
  /** Everything the store holds, as text (the SQLite files, or every PostgreSQL row). */
  storedText(): Promise<string>;
  admin<T = any>(method: string, route: string, body?: unknown, instance?: number): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** The many-instance pass's servers, when this test run has them. */
export function sharedServices(): { postgresUrl: string; redisUrl: string } | undefined {
  const postgresUrl = process.env.TEST_POSTGRES_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  return postgresUrl && redisUrl ? { postgresUrl, redisUrl } : undefined;
}

/** A new empty database on the test cluster, so test files never see each other's rows. */
export async function createTestDatabase(postgresUrl: string): Promise<string> {
  const name = `gw_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function startGateway(extraEnv: Record<string, string> = {}, options: { processes?: number } = {}): Promise<Gateway> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-test-"));
  const services = extraEnv.DATABASE_URL === undefined ? sharedServices() : undefined;
  const processes = options.processes ?? (services ? 2 : 1);
  const sharedEnv: Record<string, string> = services
    ? {
        DATABASE_URL: await createTestDatabase(services.postgresUrl),
        REDIS_URL: services.redisUrl,
        ADMIN_API_KEY: extraEnv.ADMIN_API_KEY || `admin-${randomBytes(16).toString("hex")}`,
        AUTH_SECRET: randomBytes(32).toString("base64url"),
        ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      }
    : { DATABASE_URL: "" };
  let output = "";
  const children: ChildProcess[] = [];
  const start = () => {
    // GATEWAY_NODE_ARGS lets a benchmark profile the server (`--cpu-prof`).
    const nodeArgs = process.env.GATEWAY_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
    const child: ChildProcess = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "server.ts"], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        ADMIN_API_KEY: "",
        LOG_LEVEL: "warn",
        MOCK_STREAM_DELAY_MS: "0",
        LOG_FLUSH_INTERVAL_MS: "50",
        NEXT_TELEMETRY_DISABLED: "1",
        ...sharedEnv,
        ...extraEnv,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let own = "";
    child.stdout!.on("data", (data) => ((own += data), (output += data)));
    child.stderr!.on("data", (data) => ((own += data), (output += data)));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${own}`)), 90_000);
      child.stdout!.on("data", () => {
        const match = /Gateway ready on (http:\/\/\S+)/.exec(own);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`gateway exited with ${code}:\n${own}`));
      });
    });
  };
  // Started together, as a deployment's instances are: the migration runner must cope.
  const starting = Array.from({ length: processes }, start);
  const instances = await Promise.all(starting).catch(async (error: unknown) => {
    // One failed: stop the others, or they would outlive the test run.
    await Promise.allSettled(starting);
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const balancer = processes > 1 ? await startRoundRobinProxy(instances.map((url) => Number(new URL(url).port))) : undefined;
  const url = balancer ? `http://127.0.0.1:${balancer.port}` : instances[0]!;
  const secrets = new Set<string>();
  const adminKey = sharedEnv.ADMIN_API_KEY || extraEnv.ADMIN_API_KEY || fs.readFileSync(path.join(dataDir, "admin-api-key"), "utf8").trim();

  const handle: Gateway = {
    url,
    dataDir,
    adminKey,
    instances,
    pids: children.map((child) => child.pid!),
    output: () => output,
    setupCode: () => fs.readFileSync(path.join(dataDir, "setup-code"), "utf8").trim(),
    secrets,
    async storedText() {
      if (!sharedEnv.DATABASE_URL) {
        const files = fs.readdirSync(dataDir).filter((name) => name.startsWith("gateway.db"));
        return files.map((name) => fs.readFileSync(path.join(dataDir, name)).toString("latin1")).join("");
      }
      const client = new pg.Client({ connectionString: sharedEnv.DATABASE_URL });
      await client.connect();
      try {
        let text = "";
        for (const table of ["User", "Token", "Channel", "RequestLog", "Setting"]) {
          const { rows } = await client.query(`SELECT row_to_json(t)::text AS row FROM "${table}" t`);
          text += rows.map((row) => row.row).join("\n");
        }
        return text;
      } finally {
        await client.end();
      }
    },
    async admin(method, route, body, instance) {
      // Each process writes its own log rows in batches: have every one write before reading.
      if (route.startsWith("/api/admin/logs") && instance === undefined && instances.length > 1) {
        for (const address of instances) {
          await fetch(`${address}/api/admin/logs?limit=1`, { headers: { authorization: `Bearer ${adminKey}` } }).then((response) => response.arrayBuffer());
        }
      }
      const sentKey = (body as { apiKey?: unknown } | undefined)?.apiKey;
      if (typeof sentKey === "string" && sentKey.length >= 8) secrets.add(sentKey);
      const response = await fetch(`${instance === undefined ? url : instances[instance]}${route}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = await response.json();
      if (typeof answer?.key === "string") secrets.add(answer.key);
      return { status: response.status, body: answer };
    },
    async stop() {
      // Errors the gateway logged (a 500's cause) belong in the test output.
      const errors = output.split("\n").filter((line) => /"level":(50|60)/.test(line));
      if (errors.length > 0) process.stderr.write(`gateway errors:\n${errors.join("\n").slice(0, 8000)}\n`);
      await balancer?.close();
      const stored = children.every((child) => child.exitCode !== null) ? "" : await handle.storedText().catch(() => "");
      await Promise.all(
        children.map(async (child) => {
          if (child.exitCode !== null) return;
          const exited = new Promise((resolve) => child.once("exit", resolve));
          child.kill("SIGTERM");
          await exited;
        }),
      );
      // No token or channel key may be written anywhere: the database, other files, the process output.
      const files = listFiles(dataDir).map((file) => fs.readFileSync(file).toString("latin1"));
      const leaked = [...secrets].filter((secret) => [output, stored, ...files].some((text) => text.includes(secret)));
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (leaked.length > 0) throw new Error(`secrets found in the gateway's output or data: ${leaked.map((secret) => `${secret.slice(0, 6)}…`).join(", ")}`);
    },
  };
  return handle;
}

function listFiles(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}
