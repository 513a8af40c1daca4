// Generates the Prisma client without network access. The CLI would otherwise try to
// download its schema engine, which `generate` never uses; any executable satisfies it.
import { spawnSync } from "node:child_process";

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;

const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
