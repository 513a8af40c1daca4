import path from "node:path";
import { env } from "@/lib/env";

export type DatabaseKind = "sqlite" | "postgresql";

export type DatabaseLocation = { kind: "sqlite" /** Absolute file path. */; file: string } | { kind: "postgresql"; url: string };

/**
 * Resolves DATABASE_URL: `file:` (default `file:<DATA_DIR>/gateway.db`, relative to the
 * working directory) for the embedded SQLite store, `postgres://` or `postgresql://` for
 * PostgreSQL.
 */
export function resolveDatabaseLocation(url = env.DATABASE_URL): DatabaseLocation {
  const value = url ?? `file:${path.join(env.DATA_DIR, "gateway.db")}`;
  if (value.startsWith("file:")) {
    const file = value.slice("file:".length).replace(/^\/\//, "");
    return { kind: "sqlite", file: path.resolve(file) };
  }
  if (/^postgres(ql)?:\/\//.test(value)) return { kind: "postgresql", url: value };
  throw new Error(`DATABASE_URL must be a SQLite file: URL or a postgresql:// URL (got "${value.split(":")[0]}:...")`);
}
