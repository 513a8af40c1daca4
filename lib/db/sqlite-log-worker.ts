// The SQLite request log's writer thread: inserts, commits and the WAL checkpoints that
// follow them (with their fsync) run here, never on the event loop that serves requests.
import { parentPort, workerData } from "node:worker_threads";
import { openSqlite, prepareLogSweep, prepareLogWrites, type SqliteLogBatch } from "./sqlite-log-writes";

export type LogThreadRequest =
  | { kind: "write"; id: number; batch: SqliteLogBatch }
  // One small batch of the retention sweep: between two batches, writes go first.
  | { kind: "sweep"; id: number; before: string; limit: number }
  | { kind: "close" };
/** Id 0 says the thread is ready: its connection is open. */
export interface LogThreadReply {
  id: number;
  error?: string;
  /** Rows a sweep batch deleted. */
  deleted?: number;
}

if (parentPort) {
  const port = parentPort;
  const database = openSqlite((workerData as { file: string }).file);
  const write = prepareLogWrites(database);
  let sweep: ReturnType<typeof prepareLogSweep> | undefined;
  port.postMessage({ id: 0 } satisfies LogThreadReply);
  port.on("message", (request: LogThreadRequest) => {
    if (request.kind === "close") {
      database.close();
      port.close();
      return;
    }
    try {
      if (request.kind === "sweep") {
        sweep ??= prepareLogSweep(database);
        port.postMessage({ id: request.id, deleted: sweep(request.before, request.limit) } satisfies LogThreadReply);
        return;
      }
      write(request.batch);
      port.postMessage({ id: request.id } satisfies LogThreadReply);
    } catch (error) {
      port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies LogThreadReply);
    }
  });
}
