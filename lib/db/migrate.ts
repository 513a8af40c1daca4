import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";

// Applies prisma/migrations/<kind>/*/migration.sql in name order, each once, inside a
// transaction. The Prisma CLI's migrate needs a downloaded engine; this does not.
const MIGRATIONS_TABLE = "_gateway_migrations";

export function migrationsDirectory(kind: string): string {
  return path.resolve(process.cwd(), "prisma", "migrations", kind);
}

export function listMigrations(kind: string): { name: string; sql: string }[] {
  const directory = migrationsDirectory(kind);
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(directory, name, "migration.sql"), "utf8") }));
}

/** Returns the names of the migrations applied by this call. */
export function migrateSqlite(file: string): string[] {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new Database(file);
  try {
    database.pragma("journal_mode = WAL");
    database.exec(
      `CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`,
    );
    const applied = new Set(
      database.prepare(`SELECT "name" FROM "${MIGRATIONS_TABLE}"`).all().map((row) => (row as { name: string }).name),
    );
    const record = database.prepare(`INSERT INTO "${MIGRATIONS_TABLE}" ("name", "appliedAt") VALUES (?, ?)`);
    const appliedNow: string[] = [];
    for (const migration of listMigrations("sqlite")) {
      if (applied.has(migration.name)) continue;
      database.transaction(() => {
        database.exec(migration.sql);
        record.run(migration.name, new Date().toISOString());
      })();
      appliedNow.push(migration.name);
    }
    return appliedNow;
  } finally {
    database.close();
  }
}
