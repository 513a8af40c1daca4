import type { Database } from "@/lib/db/client";

/**
 * `database` as a process held between its read and its write sees it: each `updateMany` on
 * `model` first calls `reached`, then waits for `gate` (once it has opened, calls pass at once).
 */
export function heldAtWrite(database: Database, model: "channel" | "webhookDelivery", gate: Promise<void>, reached: () => void): Database {
  const table = database[model];
  const held = new Proxy(table, {
    get(target, property) {
      if (property === "updateMany") {
        return async (args: unknown) => {
          reached();
          await gate;
          return (target.updateMany as (args: unknown) => Promise<unknown>)(args);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return new Proxy(database, {
    get(target, property) {
      if (property === model) return held;
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
