import type { Database } from "@/lib/db/client";
import { toModelRoute, type ModelRoute } from "./model-route";

/**
 * Every model record, in memory: requests read routes from here, never from the database.
 * Reloaded every `refreshMs` (a missed change notice is caught up) and at once when a change
 * is announced through the shared state (runtime.ts listens for the "models" invalidation).
 */
export class ModelCache {
  private routes = new Map<string, ModelRoute>();
  private timer: NodeJS.Timeout | undefined;
  private loading: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private announced: Promise<void> | undefined;

  constructor(
    private readonly database: Database,
    private readonly onError: (error: unknown) => void,
  ) {}

  async start(refreshMs: number): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => this.reload().catch(this.onError), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Resolves once a load that started after this call has finished (one more follows a load under way). */
  reload(): Promise<void> {
    if (!this.loading) {
      this.loading = this.load().finally(() => {
        this.loading = undefined;
      });
      return this.loading;
    }
    this.queued ??= this.loading
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.reload();
      });
    return this.queued;
  }

  /** Reloads for a change another process announced; until loaded, `settling` holds it so requests route on the change. */
  reloadAnnounced(): Promise<void> {
    const loaded = this.reload();
    const settled: Promise<void> = loaded
      .catch(() => undefined)
      .finally(() => {
        if (this.announced === settled) this.announced = undefined;
      });
    this.announced = settled;
    return loaded;
  }

  /** An announced change still loading (never rejects), or undefined. */
  get settling(): Promise<void> | undefined {
    return this.announced;
  }

  private async load(): Promise<void> {
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
