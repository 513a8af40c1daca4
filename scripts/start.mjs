// `npm start`: builds the console only when needed, then runs server.ts in this same
// process (one process: one Ctrl-C, no second copy of Node in memory), so a second
// start is ready in seconds.
import { register } from "tsx/esm/api";
import { ensureBuild } from "./ensure-build.mjs";

process.env.NODE_ENV ??= "production";
process.env.NEXT_TELEMETRY_DISABLED ??= "1";

try {
  ensureBuild();
} catch (error) {
  process.stderr.write(`Could not build the console: ${error.message}\n`);
  process.exit(1);
}
register();
try {
  await import("../server.ts");
} catch (error) {
  // Configuration errors surface here, while modules load: one message, no stack.
  process.stderr.write(`Gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
