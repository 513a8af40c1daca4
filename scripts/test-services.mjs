// Real PostgreSQL and Redis servers for one test run, owned by it: a fresh cluster in a
// temp directory and a Redis without persistence, on free ports, stopped at the end.
// Installs Debian's packages first when they are missing and this machine allows it.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

function have(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

function ensurePackages() {
  const missing = [];
  if (!findPgBin()) missing.push("postgresql");
  if (!have("redis-server")) missing.push("redis-server");
  if (missing.length === 0) return;
  const root = process.getuid?.() === 0;
  if (!root || !have("apt-get")) {
    throw new Error(`The integration tests need PostgreSQL and Redis: run 'apt-get install -y ${missing.join(" ")}' as root.`);
  }
  process.stdout.write(`Installing ${missing.join(" and ")} from Debian's packages for the tests...\n`);
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
  execFileSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
}

function findPgBin() {
  return ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"].find((dir) => fs.existsSync(path.join(dir, "initdb")));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts both servers; returns their URLs and a stop function. */
export async function startTestServices() {
  ensurePackages();
  const bin = findPgBin();
  const root = process.getuid?.() === 0;
  const asPostgres = (command, args) => (root ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args]);
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-pg-"));
  if (root) execFileSync("chown", ["postgres:postgres", directory]);
  const data = path.join(directory, "data");
  const pgPort = await freePort();
  const [initCommand, initArgs] = asPostgres(path.join(bin, "initdb"), ["-D", data, "-U", "gw", "--auth=trust", "-E", "UTF8"]);
  execFileSync(initCommand, initArgs, { stdio: "ignore" });
  const [ctlCommand, ctlArgs] = asPostgres(path.join(bin, "pg_ctl"), [
    "-D",
    data,
    "-l",
    path.join(directory, "log"),
    "-w",
    "-o",
    `-p ${pgPort} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
    "start",
  ]);
  execFileSync(ctlCommand, ctlArgs, { stdio: "ignore" });

  const redisPort = await freePort();
  execFileSync(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "yes", "--pidfile", path.join(directory, "redis.pid")],
    { stdio: "ignore" },
  );

  const stop = () => {
    const [stopCommand, stopArgs] = asPostgres(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
    spawnSync(stopCommand, stopArgs, { stdio: "ignore" });
    const pidFile = path.join(directory, "redis.pid");
    if (fs.existsSync(pidFile)) {
      try {
        process.kill(Number(fs.readFileSync(pidFile, "utf8")), "SIGTERM");
      } catch {
        // already gone
      }
    }
    fs.rmSync(directory, { recursive: true, force: true });
  };
  return {
    postgresUrl: `postgresql://gw@127.0.0.1:${pgPort}/postgres`,
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    stop,
  };
}
