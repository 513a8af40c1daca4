// `npm start`: builds the console only when needed, then runs server.ts, so a second
// start is ready in seconds.
import { spawn } from "node:child_process";
import { ensureBuild } from "./ensure-build.mjs";

try {
  ensureBuild();
} catch (error) {
  process.stderr.write(`Could not build the console: ${error.message}\n`);
  process.exit(1);
}
const server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
  stdio: "inherit",
  env: { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
