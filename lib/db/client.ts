import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaClient } from "@/lib/db/generated/client";
import type { DatabaseLocation } from "@/lib/db/database-url";

export type Database = PrismaClient;

export function createDatabase(location: DatabaseLocation): Database {
  const adapter = new PrismaBetterSqlite3({ url: `file:${location.file}` });
  return new PrismaClient({ adapter });
}
