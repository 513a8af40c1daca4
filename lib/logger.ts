import pino from "pino";
import { env } from "@/lib/env";

// JSON lines to stdout through an asynchronous buffer: logging never blocks a request.
export const logger = pino(
  {
    level: env.LOG_LEVEL,
    base: undefined,
    redact: { paths: ["*.authorization", "*.apiKey", "*.key", "*.password"], censor: "[redacted]" },
  },
  pino.destination({ sync: false, minLength: 0 }),
);
