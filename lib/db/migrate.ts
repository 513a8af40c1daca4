import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { DatabaseKind, DatabaseLocation } from "./database-url";

// Applies prisma/migrations/<kind>/*/migration.sql in name order, each once. The Prisma
// CLI's migrate needs a downloaded engine; this does not. Safe when several processes
// start at once against an empty database: SQLite takes its write lock for the whole
// run, PostgreSQL an advisory lock.
const MIGRATIONS_TABLE = "_gateway_migrations";
const POSTGRES_LOCK_ID = 7_302_118_511;

export function migrationsDirectory(kind: DatabaseKind): string {
  return path.resolve(process.cwd(), "prisma", "migrations", kind);
}

export function listMigrations(kind: DatabaseKind): { name: string; sql: string }[] {
  const directory = migrationsDirectory(kind);
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, sql: fs.readFileSync(path.join(directory, name, "migration.sql"), "utf8") }));
}

/** Returns the names of the migrations applied by this call. */
export function migrate(location: DatabaseLocation): Promise<string[]> {
  return location.kind === "sqlite" ? Promise.resolve(migrateSqlite(location.file)) : migratePostgres(location.url);
}

export function migrateSqlite(file: string): string[] {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The busy timeout first: switching to WAL itself waits for a lock another process may hold.
  const database = new Database(file, { timeout: 30_000 });
  try {
    database.pragma("journal_mode = WAL");
    const run = database.transaction(() => {
      database.exec(`CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`);
      const applied = new Set(
        database
          .prepare(`SELECT "name" FROM "${MIGRATIONS_TABLE}"`)
          .all()
          .map((row) => (row as { name: string }).name),
      );
      const record = database.prepare(`INSERT INTO "${MIGRATIONS_TABLE}" ("name", "appliedAt") VALUES (?, ?)`);
      const appliedNow: string[] = [];
      for (const migration of listMigrations("sqlite")) {
        if (applied.has(migration.name)) continue;
        database.exec(migration.sql);
        record.run(migration.name, new Date().toISOString());
        appliedNow.push(migration.name);
      }
      return appliedNow;
    });
    return run.immediate();
  } finally {
    database.close();
  }
}

async function migratePostgres(url: string): Promise<string[]> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [POSTGRES_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "${MIGRATIONS_TABLE}" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`);
    const { rows } = await client.query<{ name: string }>(`SELECT "name" FROM "${MIGRATIONS_TABLE}"`);
    const applied = new Set(rows.map((row) => row.name));
    const appliedNow: string[] = [];
    for (const migration of listMigrations("postgresql")) {
      if (applied.has(migration.name)) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO "${MIGRATIONS_TABLE}" ("name", "appliedAt") VALUES ($1, $2)`, [migration.name, new Date().toISOString()]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
      appliedNow.push(migration.name);
    }
    return appliedNow;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [POSTGRES_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
