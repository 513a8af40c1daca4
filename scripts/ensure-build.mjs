// Runs `next build` only when the console's sources changed since the last build.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const STAMP = path.join(".next", "gateway-source-hash");
const INPUTS = ["app", "lib", "public", "next.config.mjs", "postcss.config.mjs", "tsconfig.json", "package-lock.json"];
const SKIP = new Set([path.join("lib", "db", "generated")]);

function hashSources() {
  const hash = createHash("sha256");
  const visit = (entry) => {
    if (!fs.existsSync(entry) || SKIP.has(entry)) return;
    if (fs.statSync(entry).isDirectory()) {
      for (const name of fs.readdirSync(entry).sort()) visit(path.join(entry, name));
    } else {
      hash.update(entry).update("\0").update(fs.readFileSync(entry)).update("\0");
    }
  };
  INPUTS.forEach(visit);
  return hash.digest("hex");
}

export function ensureBuild() {
  const wanted = hashSources();
  const built = fs.existsSync(path.join(".next", "BUILD_ID")) && fs.existsSync(STAMP);
  if (built && fs.readFileSync(STAMP, "utf8") === wanted) return;
  process.stdout.write("Building the console (first start or sources changed)...\n");
  const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  fs.writeFileSync(STAMP, wanted);
}
