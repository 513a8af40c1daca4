import { PrismaClient } from "@/lib/db/generated/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/db/generated-postgresql/client";
import type { DatabaseLocation } from "@/lib/db/database-url";

/**
 * The Prisma client. Both generated clients come from one schema (see
 * scripts/prisma-generate.mjs), so the PostgreSQL one has the SQLite one's shape.
 */
export type Database = PrismaClient;

/** The driver adapter is imported only for the store in use (each costs memory at load). */
export async function createDatabase(location: DatabaseLocation): Promise<Database> {
  if (location.kind === "sqlite") {
    const { PrismaBetterSqlite3 } = await import("@prisma/adapter-better-sqlite3");
    return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${location.file}` }) });
  }
  const { PrismaPg } = await import("@prisma/adapter-pg");
  const client = new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: location.url, max: 10 }) });
  return client as unknown as Database;
}
