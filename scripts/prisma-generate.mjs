// Generates the Prisma clients without network access: one for SQLite from
// prisma/schema.prisma, and one for PostgreSQL from the same models (only the datasource
// provider and the output folder differ, so the two can never drift apart). The CLI would
// otherwise try to download its schema engine, which `generate` never uses; any
// executable satisfies it.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

const source = fs.readFileSync("prisma/schema.prisma", "utf8");
const postgresDirectory = path.join("prisma", ".generated-postgresql");
fs.mkdirSync(postgresDirectory, { recursive: true });
const postgresSchema = source
  .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
  .replace(/output\s*=\s*"\.\.\/lib\/db\/generated"/, 'output       = "../../lib/db/generated-postgresql"');
if (postgresSchema === source) throw new Error("prisma/schema.prisma: datasource or output not found");
fs.writeFileSync(path.join(postgresDirectory, "schema.prisma"), postgresSchema);

for (const schema of ["prisma/schema.prisma", path.join(postgresDirectory, "schema.prisma")]) {
  const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate", "--schema", schema], {
    env,
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
