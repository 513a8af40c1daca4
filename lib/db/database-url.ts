import path from "node:path";
import { env } from "@/lib/env";

export type DatabaseKind = "sqlite";

export interface DatabaseLocation {
  kind: DatabaseKind;
  /** Absolute file path for SQLite. */
  file: string;
}

/** Resolves DATABASE_URL (default `file:<DATA_DIR>/gateway.db`) relative to the working directory. */
export function resolveDatabaseLocation(url = env.DATABASE_URL): DatabaseLocation {
  const value = url ?? `file:${path.join(env.DATA_DIR, "gateway.db")}`;
  if (value.startsWith("file:")) {
    const file = value.slice("file:".length).replace(/^\/\//, "");
    return { kind: "sqlite", file: path.resolve(file) };
  }
  throw new Error(`DATABASE_URL must be a SQLite file: URL (got "${value.split(":")[0]}:...")`);
}
