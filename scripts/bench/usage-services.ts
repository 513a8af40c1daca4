// The processes the usage-scale benchmark runs: the fake upstream, the gateway as
// `npm start` runs it (the production build), and a throwaway PostgreSQL cluster.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

/** Starts a process and resolves with the first output matching `ready`. */
function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs = 900_000,
): Promise<{ child: ChildProcess; match: RegExpExecArray; output: () => string }> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  child.once("exit", () => children.delete(child));
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} ${args.join(" ")} did not start:\n${output.slice(-4000)}`)), timeoutMs);
    const check = () => {
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout!.on("data", (data) => {
      output += data;
      check();
    });
    child.stderr!.on("data", (data) => (output += data));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(" ")} exited with ${code}:\n${output.slice(-4000)}`));
    });
  });
}

export async function startUpstream(): Promise<{ url: string; stop(): void }> {
  const { child, match } = await startProcess(process.execPath, ["--import", "tsx", "scripts/bench/upstream.ts"], {}, /^(\d+)$/m);
  return { url: `http://127.0.0.1:${match[1]}`, stop: () => child.kill("SIGTERM") };
}

export interface RunningGateway {
  url: string;
  pid: number;
  adminKey: string;
  admin<T = any>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Resident memory now and at its peak, in MB. */
  memory(): { rssMb: number; peakMb: number };
  output(): string;
  stop(): Promise<void>;
}

export const ADMIN = { email: "admin@bench.example", password: "bench-password-1" };

/** The gateway as `npm start` runs it (builds first when the sources changed), one process. */
export async function startGateway(dataDir: string, env: Record<string, string> = {}): Promise<RunningGateway> {
  fs.mkdirSync(dataDir, { recursive: true });
  const adminKey = "bench-admin-key-0123456789abcdef";
  const { child, match, output } = await startProcess(
    process.execPath,
    ["scripts/start.mjs"],
    {
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      REDIS_URL: "",
      ADMIN_API_KEY: adminKey,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: "warn",
      PROCESSES: "1",
      NEXT_TELEMETRY_DISABLED: "1",
      ...env,
    },
    /Gateway ready on (http:\/\/\S+)/,
  );
  const url = match[1]!.replace("localhost", "127.0.0.1");
  const pid = child.pid!;
  return {
    url,
    pid,
    adminKey,
    output,
    async admin(method, route, body) {
      const response = await fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${adminKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
    memory() {
      const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
      const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return { rssMb: Math.round(kb("VmRSS") / 1024), peakMb: Math.round(kb("VmHWM") / 1024) };
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const PG_BIN = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"].find((directory) => fs.existsSync(path.join(directory, "initdb")));

/**
 * A PostgreSQL cluster in `directory` (made on first use, kept for --keep), started on a free
 * port; as root, run as the postgres user (initdb refuses root).
 */
export async function startPostgres(directory: string): Promise<{ url: (database: string) => string; stop(): void }> {
  if (!PG_BIN) throw new Error("PostgreSQL not found: run 'apt-get install -y postgresql' as root.");
  const root = process.getuid?.() === 0;
  const as = (command: string, args: string[]): [string, string[]] =>
    root ? ["runuser", ["-u", "postgres", "--", path.join(PG_BIN, command), ...args]] : [path.join(PG_BIN, command), args];
  const data = path.join(directory, "data");
  if (!fs.existsSync(path.join(data, "PG_VERSION"))) {
    fs.mkdirSync(directory, { recursive: true });
    if (root) execFileSync("chown", ["postgres:postgres", directory]);
    execFileSync(...as("initdb", ["-D", data, "-U", "gw", "--auth=trust", "-E", "UTF8"]), { stdio: "ignore" });
  }
  const port = await freePort();
  // Settings of a small dedicated server (the defaults are for a shared laptop); fsync off only
  // because the cluster is thrown away (it changes commit latency, not reads).
  const settings = [
    `-p ${port}`,
    `-k ${directory}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    "-c shared_buffers=1GB",
    "-c work_mem=32MB",
    "-c maintenance_work_mem=512MB",
    "-c max_wal_size=8GB",
    "-c effective_cache_size=8GB",
  ];
  execFileSync(...as("pg_ctl", ["-D", data, "-l", path.join(directory, "log"), "-w", "-o", settings.join(" "), "start"]), { stdio: "ignore" });
  return {
    url: (database) => `postgresql://gw@127.0.0.1:${port}/${database}`,
    stop: () => void spawnSync(...as("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]), { stdio: "ignore" }),
  };
}
