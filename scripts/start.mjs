// `npm start`: builds the console with `next build` only when the sources changed since
// the last build, then runs server.ts. A second start is ready in seconds.
import { spawnSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const STAMP = path.join(".next", "gateway-source-hash");
const INPUTS = ["app", "lib", "public", "next.config.mjs", "postcss.config.mjs", "tsconfig.json", "package-lock.json"];

function hashSources() {
  const hash = createHash("sha256");
  const visit = (entry) => {
    if (!fs.existsSync(entry)) return;
    const stat = fs.statSync(entry);
    if (stat.isDirectory()) {
      if (entry === path.join("lib", "db", "generated")) return;
      for (const name of fs.readdirSync(entry).sort()) visit(path.join(entry, name));
    } else {
      hash.update(entry).update("\0").update(fs.readFileSync(entry)).update("\0");
    }
  };
  INPUTS.forEach(visit);
  return hash.digest("hex");
}

const wanted = hashSources();
const current = fs.existsSync(path.join(".next", "BUILD_ID")) && fs.existsSync(STAMP) ? fs.readFileSync(STAMP, "utf8") : "";
if (current !== wanted) {
  process.stdout.write("Building the console (first start or sources changed)...\n");
  const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  fs.writeFileSync(STAMP, wanted);
}

const server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
  stdio: "inherit",
  env: { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
