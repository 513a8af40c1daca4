import cluster from "node:cluster";
import type { Server, ServerResponse } from "node:http";

/** Counts the responses still under way, so a shutdown can wait for them. */
export class InFlightRequests {
  private readonly open = new Set<ServerResponse>();
  private readonly idle: (() => void)[] = [];

  track(response: ServerResponse): void {
    this.open.add(response);
    response.once("close", () => {
      this.open.delete(response);
      if (this.open.size === 0) for (const wake of this.idle.splice(0)) wake();
    });
  }

  get size(): number {
    return this.open.size;
  }

  /** Resolves true when every open response is done, false if `deadlineMs` passes first. */
  drained(deadlineMs: number): Promise<boolean> {
    if (this.open.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), deadlineMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

export interface ShutdownSteps {
  server: Server;
  inFlight: InFlightRequests;
  deadlineMs: number;
  /** Closes long-lived sockets (WebSockets) that would never finish on their own. */
  closeSessions(): void;
  /** Writes queued log rows and closes the store; must be safe to call twice. */
  flushAndClose(): Promise<void>;
  say(line: string): void;
}

/**
 * Emitted on `process` by the launcher (scripts/start.mjs) when the npm that started it has
 * exited: a process manager's SIGTERM stops npm and never reaches this process.
 */
export const PARENT_GONE_EVENT = "gateway:parent-gone";
const PARENT_GONE = "npm exited (a signal sent to npm does not reach the server: run `node scripts/start.mjs` under a process manager)";

/** How long a second signal waits for the cut requests' rows before exiting regardless. */
const FORCED_EXIT_MS = 15_000;

/**
 * SIGTERM/SIGINT/SIGHUP: stop accepting, let open requests finish up to the deadline, then flush
 * the log queue and close the store. A second signal cuts what is left short, still
 * flushing what was recorded, and exits at once.
 */
export function handleShutdownSignals(steps: ShutdownSteps): void {
  let stopping: Promise<void> | undefined;
  // A stop that a hang-up or npm's exit started: the first signal after it belongs to the same
  // stop. A SIGTERM to npm's whole group reaches npm and this process at once, and npm's exit
  // may be seen first (on a busy machine, the check's timer runs before the signal is read).
  let startedSoftly = false;
  const stop = async (signal: string) => {
    steps.server.close();
    steps.server.closeIdleConnections();
    steps.closeSessions();
    if (steps.inFlight.size > 0) {
      steps.say(`${signal}: waiting for ${steps.inFlight.size} open request(s) to finish (up to ${Math.round(steps.deadlineMs / 1000)} s; signal again to stop now)`);
      // Keep-alive connections go as soon as their current response ends.
      const sweep = setInterval(() => steps.server.closeIdleConnections(), 100);
      const drained = await steps.inFlight.drained(steps.deadlineMs);
      clearInterval(sweep);
      if (!drained) steps.say(`deadline passed: closing ${steps.inFlight.size} request(s) still open`);
    }
    steps.server.closeAllConnections();
    await steps.flushAndClose();
    process.exit(0);
  };
  const onSignal = (signal: string, soft = false) => {
    if (!stopping) {
      startedSoftly = soft;
      stopping = stop(signal);
      return;
    }
    // A hang-up never forces a stop; nor does the first signal after a stop one started.
    if (soft) return;
    if (startedSoftly) {
      startedSoftly = false;
      steps.say(`${signal}: already stopping, waiting for ${steps.inFlight.size} open request(s) (signal again to stop now)`);
      return;
    }
    steps.say(`${signal} again: stopping now`);
    steps.server.closeAllConnections();
    // Exits as soon as the cut requests' rows are written; the timer only guards against a
    // store that hangs (a loaded machine may take seconds to estimate and write the rows).
    const forced = setTimeout(() => process.exit(1), FORCED_EXIT_MS);
    forced.unref();
    void steps.flushAndClose().finally(() => process.exit(1));
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  if (!cluster.isWorker) {
    process.on("SIGINT", () => onSignal("SIGINT"));
    // A hang-up (the terminal closed, or the launcher's parent went away) starts a stop but
    // never forces one: it may come on top of the SIGTERM that stopped the parent.
    process.on("SIGHUP", () => onSignal("SIGHUP", true));
    // Like a hang-up: starts a stop, never forces one (npm's SIGTERM may reach us as well).
    process.on(PARENT_GONE_EVENT, () => onSignal(PARENT_GONE, true));
    return;
  }
  // A cluster worker (PROCESSES=N): Ctrl-C and a closed terminal reach every process of the
  // terminal's group, so workers leave them to the primary, which relays the shutdown once.
  process.on("SIGINT", () => undefined);
  process.on("SIGHUP", () => undefined);
  process.on("message", (message) => {
    if (message === "shutdown" || message === "force") onSignal(message === "force" ? "second signal" : "shutdown");
  });
  // The primary is gone (killed outright): drain and exit rather than live on orphaned.
  process.on("disconnect", () => onSignal("primary gone"));
}
