import type { Database } from "@/lib/db/client";
import { ReloadingCache } from "@/lib/state/reloading-cache";
import { toModelRoute, type ModelRoute } from "./model-route";

/** Every model record, in memory: requests read routes from here, never from the database ("models" invalidation). */
export class ModelCache extends ReloadingCache {
  private routes = new Map<string, ModelRoute>();

  constructor(
    private readonly database: Database,
    onError: (error: unknown) => void,
  ) {
    super(onError);
  }

  protected async load(): Promise<void> {
    const rows = await this.database.modelRoute.findMany();
    this.routes = new Map(rows.map((row) => [row.name, toModelRoute(row)]));
  }

  /** The model's record, or undefined: a model without one routes as it always has. */
  find(name: string): ModelRoute | undefined {
    return this.routes.get(name);
  }

  all(): ModelRoute[] {
    return [...this.routes.values()];
  }
}
