import { Worker } from "node:worker_threads";
import type { LogThreadReply, LogThreadRequest } from "./sqlite-log-worker";
import type { SqliteLogBatch } from "./sqlite-log-writes";

/** The writer thread could not start at all (its script missing, the file unopenable). */
export class LogThreadUnavailable extends Error {}

interface Pending {
  resolve: (deleted: number) => void;
  reject: (error: Error) => void;
}

/**
 * Hands log batches to the writer thread (sqlite-log-worker.ts) and settles each once it
 * is committed. The thread starts on the first write, so an idle process never holds it;
 * if it dies, the batches in flight fail (the writer queues them again) and the next write
 * starts a new one.
 */
export class SqliteLogThread {
  private worker: Worker | undefined;
  private ready = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly file: string,
    private readonly script: URL,
  ) {}

  async write(batch: SqliteLogBatch): Promise<void> {
    await this.send((id) => ({ kind: "write", id, batch }));
  }

  /** One retention batch, run between writes on the thread: the rows it deleted. */
  sweep(before: string, limit: number): Promise<number> {
    return this.send((id) => ({ kind: "sweep", id, before, limit }));
  }

  /** One batch of the rollups' backfill, run between writes on the thread: true while rows are left. */
  async backfill(limit: number): Promise<boolean> {
    return (await this.send((id) => ({ kind: "backfill", id, limit }))) === 1;
  }

  private send(request: (id: number) => LogThreadRequest): Promise<number> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    // Held while work is in flight; an idle thread never keeps the process up.
    if (this.pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(request(id));
    });
  }

  /** Ends the thread after the writes already handed over. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    worker.ref();
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    worker.postMessage({ kind: "close" } satisfies LogThreadRequest);
    await exited;
  }

  private start(): Worker {
    const worker = spawnWorker(this.script, { file: this.file });
    this.worker = worker;
    this.ready = false;
    worker.on("message", (reply: LogThreadReply) => {
      if (reply.id === 0) {
        this.ready = true;
        return;
      }
      const pending = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.error === undefined) pending?.resolve(reply.deleted ?? 0);
      else pending?.reject(new Error(`request log write failed: ${reply.error}`));
    });
    worker.on("error", (error) => this.fail(worker, error));
    worker.on("exit", (code) => this.fail(worker, new Error(`the request log's writer thread stopped (exit code ${code})`)));
    return worker;
  }

  private fail(worker: Worker, cause: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const error = this.ready ? cause : new LogThreadUnavailable(cause.message, { cause });
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

/**
 * Node 20 does not carry a loader's hooks into worker threads: when the sources run as
 * TypeScript through tsx (development, tests), the thread registers tsx itself before it
 * loads its script. The server bundle's script is plain JavaScript.
 */
function spawnWorker(script: URL, workerData: unknown): Worker {
  if (!script.pathname.endsWith(".ts")) return new Worker(script, { workerData });
  const bootstrap = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(script.href)}); })`;
  return new Worker(bootstrap, { eval: true, workerData });
}
