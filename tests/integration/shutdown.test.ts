import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// A deploy's SIGTERM: open streams are served to the end, then every log row is written
// before the store closes. A second signal cuts short, still writing what it has.

async function mockGateway(delayMs: number): Promise<{ gateway: Gateway; key: string }> {
  const gateway = await startGateway({ MOCK_STREAM_DELAY_MS: String(delayMs), LOG_FLUSH_INTERVAL_MS: "60000" }, { processes: 1 });
  assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: "mock", type: "mock", models: ["mock-model"] })).status, 201);
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "shutdown" })).body.key;
  return { gateway, key };
}

/** Starts a stream and waits for its first bytes, so it is surely in flight. */
async function openStream(gateway: Gateway, key: string) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "mock-model", stream: true, messages: [{ role: "user", content: "tell me a long story" }] }),
  });
  assert.equal(response.status, 200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value);
  const rest = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return { text, complete: true };
        text += decoder.decode(value);
      }
    } catch {
      return { text, complete: false };
    }
  })();
  return { id: response.headers.get("x-request-id")!, rest };
}

function exited(pid: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      try {
        process.kill(pid, 0);
      } catch {
        clearInterval(timer);
        resolve();
      }
    }, 50);
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface NpmStart {
  child: ChildProcess;
  url: string;
  port: number;
  /** Every process under npm once it was ready. */
  tree: number[];
  /** What npm and the server printed so far. */
  output(): string;
  kill(): void;
}

/** `npm start` as a process manager runs it, on its own data, ready to serve. */
async function npmStart(extraEnv: Record<string, string>, options: { detached?: boolean } = {}): Promise<NpmStart> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-npm-"));
  const child = spawn("npm", ["start", "--silent"], {
    cwd: path.resolve(import.meta.dirname, "..", ".."),
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "warn", NODE_ENV: "production", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  let tree: number[] = [];
  const kill = () => {
    for (const pid of [child.pid!, ...tree]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const processes = Number(extraEnv.PROCESSES ?? 1);
  const deadline = Date.now() + 120_000;
  while ((output.match(/Gateway ready on/g) ?? []).length < processes) {
    if (Date.now() > deadline || child.exitCode !== null) {
      kill();
      assert.fail(`not ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const port = Number(/Gateway ready on http:\/\/localhost:(\d+)/.exec(output)![1]);
  tree = descendants(child.pid!);
  return { child, url: `http://127.0.0.1:${port}`, port, tree, output: () => output, kill };
}

/** The processes of `tree` still running 30 s on (none, once they have all exited). */
function survivors(tree: number[]): Promise<number[]> {
  return Promise.race([Promise.all(tree.map((pid) => exited(pid))).then(() => []), new Promise<number[]>((resolve) => setTimeout(() => resolve(tree.filter(alive)), 30_000))]);
}

/** Every process started under `pid`, from /proc (Linux, where the suite runs). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces or parentheses: the fields after its last ')' are fixed.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // exited while listing
    }
  }
  const found: number[] = [];
  const visit = (parent: number) => {
    for (const [child, itsParent] of parents) {
      if (itsParent === parent) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

async function outputMatches(gateway: Gateway, pattern: RegExp): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pattern.test(gateway.output())) {
    if (Date.now() > deadline) assert.fail(`no output matching ${pattern}:\n${gateway.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("graceful shutdown", () => {
  test("SIGTERM during 50 open streams: all finish, and no log row is lost", async () => {
    const { gateway, key } = await mockGateway(40);
    try {
      const streams = await Promise.all(Array.from({ length: 50 }, () => openStream(gateway, key)));
      process.kill(gateway.pids[0]!, "SIGTERM");
      // No new connections once it is shutting down. The line below is written right after
      // the listener closes; waiting for it rather than a fixed time keeps a busy machine
      // (the signal handled late) from failing the test.
      await outputMatches(gateway, /waiting for \d+ open request/);
      const { port } = new URL(gateway.url);
      await assert.rejects(new Promise((resolve, reject) => net.connect(Number(port), "127.0.0.1").once("connect", resolve).once("error", reject)), /ECONNREFUSED/);
      const results = await Promise.all(streams.map((stream) => stream.rest));
      for (const result of results) {
        assert.ok(result.complete, "served to the end");
        assert.match(result.text, /data: \[DONE\]/);
      }
      await exited(gateway.pids[0]!);
      assert.match(gateway.output(), /waiting for \d+ open request/);
      const stored = await gateway.storedText();
      const missing = streams.filter((stream) => !stored.includes(stream.id));
      assert.deepEqual(missing, [], "every stream has its row");
    } finally {
      await gateway.stop();
    }
  });

  test("a second signal stops at once, still writing the rows of what it cut", async () => {
    const { gateway, key } = await mockGateway(2000);
    try {
      const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(gateway, key)));
      process.kill(gateway.pids[0]!, "SIGTERM");
      // The second signal once the first is under way: the server says it is waiting for the streams.
      await outputMatches(gateway, /waiting for 5 open request/);
      process.kill(gateway.pids[0]!, "SIGTERM");
      await exited(gateway.pids[0]!);
      // Stopped at once: the streams (a chunk every 2 s) were cut, not served to their end.
      const results = await Promise.all(streams.map((stream) => stream.rest));
      assert.ok(
        results.every((result) => !result.text.includes("[DONE]")),
        "the streams were cut",
      );
      const stored = await gateway.storedText();
      assert.deepEqual(
        streams.filter((stream) => !stored.includes(stream.id)),
        [],
      );
    } finally {
      await gateway.stop();
    }
  });

  test("a SIGTERM after a hang-up (or npm's exit) started the stop is the same stop; the signal after it forces", async () => {
    const { gateway, key } = await mockGateway(200);
    try {
      const stream = await openStream(gateway, key);
      // What a group's SIGTERM looks like when npm's exit is seen first: a soft start, then the signal.
      process.kill(gateway.pids[0]!, "SIGHUP");
      await outputMatches(gateway, /SIGHUP: waiting for 1 open request/);
      process.kill(gateway.pids[0]!, "SIGTERM");
      await outputMatches(gateway, /SIGTERM: already stopping, waiting for 1 open request/);
      const result = await stream.rest;
      assert.ok(result.complete, "served to the end");
      assert.match(result.text, /data: \[DONE\]/);
      await exited(gateway.pids[0]!);
      assert.doesNotMatch(gateway.output(), /again: stopping now/);
    } finally {
      await gateway.stop();
    }
    const second = await mockGateway(2000);
    try {
      const stream = await openStream(second.gateway, second.key);
      process.kill(second.gateway.pids[0]!, "SIGHUP");
      await outputMatches(second.gateway, /SIGHUP: waiting for 1 open request/);
      process.kill(second.gateway.pids[0]!, "SIGTERM");
      await outputMatches(second.gateway, /SIGTERM: already stopping/);
      process.kill(second.gateway.pids[0]!, "SIGTERM");
      await exited(second.gateway.pids[0]!);
      assert.equal((await stream.rest).text.includes("[DONE]"), false, "the second signal after the hang-up cut the stream");
      assert.match(second.gateway.output(), /SIGTERM again: stopping now/);
    } finally {
      await second.gateway.stop();
    }
  });

  test("PROCESSES=2 serves on one port, and one SIGTERM to the launcher drains and stops both workers", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-cluster-"));
    const adminKey = "cluster-admin-key-0123456789";
    const child = spawn(process.execPath, ["scripts/start.mjs"], {
      cwd: path.resolve(import.meta.dirname, "..", ".."),
      env: {
        ...process.env,
        PROCESSES: "2",
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        REDIS_URL: "",
        ADMIN_API_KEY: adminKey,
        LOG_LEVEL: "warn",
        NODE_ENV: "production",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`not ready:\n${output}`)), 120_000);
        const check = () => {
          if ((output.match(/Gateway ready on/g) ?? []).length >= 2) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on("data", check);
      });
      const url = /Gateway ready on (http:\/\/\S+)/.exec(output)![1]!;
      const ports = new Set([...output.matchAll(/Gateway ready on http:\/\/localhost:(\d+)/g)].map((match) => match[1]));
      assert.equal(ports.size, 1, "both workers share the port");
      assert.doesNotMatch(output, /database is locked|failed to start/i);
      // The launcher made one setup code before forking: printed once, the one in the file.
      const codes = [...output.matchAll(/Setup code: +(\S+)/g)].map((match) => match[1]);
      assert.deepEqual(codes, [fs.readFileSync(path.join(dataDir, "setup-code"), "utf8").trim()]);
      for (let index = 0; index < 6; index += 1) {
        const response = await fetch(`${url}/api/admin/channels`, { headers: { authorization: `Bearer ${adminKey}`, connection: "close" } });
        assert.equal(response.status, 200);
        await response.arrayBuffer();
      }
      child.kill("SIGTERM");
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      assert.equal(code, 0, output);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("PROCESSES=2 starts while another process holds the SQLite write lock, waiting rather than failing with 'database is locked'", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-locked-"));
    // Longer than the SQLite driver's default 5 s wait, which a loaded machine's start-up passed.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const db = new (require("better-sqlite3"))(process.argv[1]); db.exec("BEGIN EXCLUSIVE"); console.log("locked"); setTimeout(() => { db.exec("COMMIT"); db.close(); }, 15000);`,
        path.join(dataDir, "gateway.db"),
      ],
      { cwd: path.resolve(import.meta.dirname, "..", ".."), stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    const child = spawn(process.execPath, ["scripts/start.mjs"], {
      cwd: path.resolve(import.meta.dirname, "..", ".."),
      env: {
        ...process.env,
        PROCESSES: "2",
        PORT: "0",
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        DATABASE_URL: "",
        REDIS_URL: "",
        ADMIN_API_KEY: "locked-admin-key-0123456789",
        LOG_LEVEL: "warn",
        NODE_ENV: "production",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    try {
      const deadline = Date.now() + 60_000;
      while ((output.match(/Gateway ready on/g) ?? []).length < 2) {
        if (Date.now() > deadline || child.exitCode !== null) assert.fail(`not ready:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.doesNotMatch(output, /database is locked|failed to start/i);
      child.kill("SIGTERM");
      assert.equal(await new Promise<number | null>((resolve) => child.once("exit", resolve)), 0, output);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      if (holder.exitCode === null) holder.kill("SIGKILL");
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("npm start under a process manager: one SIGTERM to npm stops the launcher and every worker, and the port closes", async () => {
    const npm = await npmStart({ PROCESSES: "2" });
    try {
      assert.ok(npm.tree.length >= 3, `npm's tree holds the launcher and two workers: ${npm.tree.join(", ")}`);
      npm.child.kill("SIGTERM");
      assert.deepEqual(await survivors(npm.tree), [], "no process of the tree outlives npm's SIGTERM");
      await assert.rejects(
        new Promise((resolve, reject) => net.connect(npm.port, "127.0.0.1").once("connect", resolve).once("error", reject)),
        /ECONNREFUSED/,
        "nothing left listening",
      );
    } finally {
      npm.kill();
    }
  });

  test("a SIGTERM to npm alone: the server says npm exited and how to start it under a process manager, not a SIGHUP nobody sent", async () => {
    const npm = await npmStart({ ADMIN_API_KEY: "npm-admin-key-0123456789", MOCK_STREAM_DELAY_MS: "40" });
    try {
      const response = await fetch(`${npm.url}/api/admin/tokens`, {
        method: "POST",
        headers: { authorization: "Bearer npm-admin-key-0123456789", "content-type": "application/json" },
        body: JSON.stringify({ name: "npm alone" }),
      });
      const { key } = (await response.json()) as { key: string };
      const stream = await fetch(`${npm.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-chat", stream: true, messages: [{ role: "user", content: "tell me a long story about a lighthouse keeper and the sea" }] }),
      });
      assert.equal(stream.status, 200);
      const reader = stream.body!.getReader();
      await reader.read();
      npm.child.kill("SIGTERM");
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      assert.match(text, /data: \[DONE\]/, "the stream was served to the end");
      assert.deepEqual(await survivors(npm.tree), []);
      assert.match(
        npm.output(),
        /npm exited \(a signal sent to npm does not reach the server: run `node scripts\/start\.mjs` under a process manager\): waiting for 1 open request/,
      );
      assert.doesNotMatch(npm.output(), /SIGHUP/);
    } finally {
      npm.kill();
    }
  });

  test("a SIGTERM to npm's whole process group (systemd's way) still lets open streams finish", async () => {
    const npm = await npmStart({ ADMIN_API_KEY: "npm-admin-key-0123456789", MOCK_STREAM_DELAY_MS: "40" }, { detached: true });
    try {
      const response = await fetch(`${npm.url}/api/admin/tokens`, {
        method: "POST",
        headers: { authorization: "Bearer npm-admin-key-0123456789", "content-type": "application/json" },
        body: JSON.stringify({ name: "group" }),
      });
      const { key } = (await response.json()) as { key: string };
      const stream = await fetch(`${npm.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "mock-chat", stream: true, messages: [{ role: "user", content: "tell me a long story about a lighthouse keeper and the sea" }] }),
      });
      assert.equal(stream.status, 200);
      const reader = stream.body!.getReader();
      await reader.read();
      // npm and its shell die at once; the server, orphaned mid-drain, must not take that as a second signal.
      process.kill(-npm.child.pid!, "SIGTERM");
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      assert.match(text, /data: \[DONE\]/, "the stream was served to the end");
      assert.deepEqual(await survivors(npm.tree), []);
    } finally {
      npm.kill();
    }
  });

  test("a busy port exits non-zero with one line saying what to set", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const port = (holder.address() as net.AddressInfo).port;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-busy-"));
    try {
      const child = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
        cwd: path.resolve(import.meta.dirname, "..", ".."),
        env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "warn", NODE_ENV: "production" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      assert.equal(code, 1);
      assert.match(stderr, /port \d+ .*is in use.*set PORT/);
      assert.equal(stderr.includes("    at "), false, "no stack trace");
    } finally {
      holder.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
