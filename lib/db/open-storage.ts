import type { RequestLogStore } from "@/lib/usage/request-log-store";
import { createDatabase, type Database } from "./client";
import { resolveDatabaseLocation, type DatabaseLocation } from "./database-url";
import { PostgresRequestLogStore } from "./postgres-request-log-store";
import { SqliteRequestLogStore } from "./sqlite-request-log-store";

export interface Storage {
  location: DatabaseLocation;
  database: Database;
  logStore: RequestLogStore;
}

/**
 * The one place storage is chosen: DATABASE_URL picks SQLite or PostgreSQL. Opens an
 * already migrated store (lib/deployment/prepare-deployment.ts migrates it).
 */
export async function openStorage(location: DatabaseLocation = resolveDatabaseLocation()): Promise<Storage> {
  const database = await createDatabase(location);
  const logStore = location.kind === "sqlite" ? new SqliteRequestLogStore(location.file) : await PostgresRequestLogStore.open(location.url);
  return { location, database, logStore };
}
