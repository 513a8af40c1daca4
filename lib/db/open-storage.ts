import type { RequestLogStore } from "@/lib/usage/request-log-store";
import { createDatabase, type Database } from "./client";
import { resolveDatabaseLocation, type DatabaseLocation } from "./database-url";
import { migrate } from "./migrate";
import { PostgresRequestLogStore } from "./postgres-request-log-store";
import { SqliteRequestLogStore } from "./sqlite-request-log-store";

export interface Storage {
  location: DatabaseLocation;
  database: Database;
  logStore: RequestLogStore;
  /** Migrations applied by this start. */
  applied: string[];
}

/** The one place storage is chosen: DATABASE_URL picks SQLite or PostgreSQL. */
export async function openStorage(location: DatabaseLocation = resolveDatabaseLocation()): Promise<Storage> {
  const applied = await migrate(location);
  const database = await createDatabase(location);
  const logStore = location.kind === "sqlite" ? new SqliteRequestLogStore(location.file) : await PostgresRequestLogStore.open(location.url);
  return { location, database, logStore, applied };
}
