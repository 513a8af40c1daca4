import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/db/generated/client";
import { PrismaClient as PostgresPrismaClient } from "@/lib/db/generated-postgresql/client";
import type { DatabaseLocation } from "@/lib/db/database-url";

/**
 * The Prisma client. Both generated clients come from one schema (see
 * scripts/prisma-generate.mjs), so the PostgreSQL one has the SQLite one's shape.
 */
export type Database = PrismaClient;

export function createDatabase(location: DatabaseLocation): Database {
  if (location.kind === "sqlite") return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${location.file}` }) });
  const client = new PostgresPrismaClient({ adapter: new PrismaPg({ connectionString: location.url, max: 10 }) });
  return client as unknown as Database;
}
