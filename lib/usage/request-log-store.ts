import type { RequestLogEntry } from "./request-log-entry";

/** Where batches of log rows and token usage go. One implementation per database. */
export interface RequestLogStore {
  /** Inserts the rows and adds the usage to each token, atomically. */
  writeBatch(entries: RequestLogEntry[], usage: Map<string, { tokens: number; lastUsedAt: Date }>): Promise<void>;
  close(): Promise<void>;
}
