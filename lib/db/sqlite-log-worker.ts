// The SQLite request log's writer thread: inserts, commits and the WAL checkpoints that
// follow them (with their fsync) run here, never on the event loop that serves requests.
import { parentPort, workerData } from "node:worker_threads";
import { openSqlite, prepareHourBackfill, prepareLogSweep, prepareLogWrites, type SqliteLogBatch } from "./sqlite-log-writes";

export type LogThreadRequest =
  | { kind: "write"; id: number; batch: SqliteLogBatch }
  // One small batch of the retention sweep: between two batches, writes go first.
  | { kind: "sweep"; id: number; before: string; limit: number }
  // One batch of the rollups' backfill of old rows, likewise between writes.
  | { kind: "backfill"; id: number; limit: number }
  | { kind: "close" };
/** Id 0 says the thread is ready: its connection is open. */
export interface LogThreadReply {
  id: number;
  error?: string;
  /** Rows a sweep batch deleted; for a backfill batch, 1 while rows are left. */
  deleted?: number;
}

if (parentPort) {
  const port = parentPort;
  const database = openSqlite((workerData as { file: string }).file);
  const write = prepareLogWrites(database);
  let sweep: ReturnType<typeof prepareLogSweep> | undefined;
  let backfill: ReturnType<typeof prepareHourBackfill> | undefined;
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
      if (request.kind === "backfill") {
        backfill ??= prepareHourBackfill(database);
        port.postMessage({ id: request.id, deleted: backfill(request.limit) ? 1 : 0 } satisfies LogThreadReply);
        return;
      }
      write(request.batch);
      port.postMessage({ id: request.id } satisfies LogThreadReply);
    } catch (error) {
      port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies LogThreadReply);
    }
  });
}
