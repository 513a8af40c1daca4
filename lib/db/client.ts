import { PrismaClient } from "@/lib/db/generated/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/db/generated-postgresql/client";
import type { DatabaseLocation } from "@/lib/db/database-url";

/** How long a SQLite connection waits for another's write lock before giving up. */
export const SQLITE_BUSY_TIMEOUT_MS = 30_000;

/**
 * The Prisma client. Both generated clients come from one schema (see
 * scripts/prisma-generate.mjs), so the PostgreSQL one has the SQLite one's shape.
 */
export type Database = PrismaClient;

/** The driver adapter is imported only for the store in use (each costs memory at load). */
export async function createDatabase(location: DatabaseLocation): Promise<Database> {
  if (location.kind === "sqlite") {
    const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
    // Wait for another process's write lock rather than fail with "database is locked".
    return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${location.file}`, timeout: SQLITE_BUSY_TIMEOUT_MS }) });
  }
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const client = new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: location.url, max: 10 }) });
  return client as unknown as Database;
}
