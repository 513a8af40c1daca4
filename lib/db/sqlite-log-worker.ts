// The SQLite request log's writer thread: inserts, commits and the WAL checkpoints that
// follow them (with their fsync) run here, never on the event loop that serves requests.
import { parentPort, workerData } from "node:worker_threads";
import { openSqlite, prepareLogWrites, type SqliteLogBatch } from "./sqlite-log-writes";

export type LogThreadRequest = { kind: "write"; id: number; batch: SqliteLogBatch } | { kind: "close" };
/** Id 0 says the thread is ready: its connection is open. */
export interface LogThreadReply {
  id: number;
  error?: string;
}

if (parentPort) {
  const port = parentPort;
  const database = openSqlite((workerData as { file: string }).file);
  const write = prepareLogWrites(database);
  port.postMessage({ id: 0 } satisfies LogThreadReply);
  port.on("message", (request: LogThreadRequest) => {
    if (request.kind === "close") {
      database.close();
      port.close();
      return;
    }
    try {
      write(request.batch);
      port.postMessage({ id: request.id } satisfies LogThreadReply);
    } catch (error) {
      port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies LogThreadReply);
    }
  });
}
