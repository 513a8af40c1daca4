/**
 * An in-memory copy of database rows that requests read instead of the database:
 * reloaded every `refreshMs` (a missed change notice is caught up) and at once when a
 * change is made here or announced by another process (lib/runtime/ listens for it).
 */
export abstract class ReloadingCache {
  private timer: NodeJS.Timeout | undefined;
  private loading: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  private announced: Promise<void> | undefined;

  constructor(protected readonly onError: (error: unknown) => void) {}

  /** Reads the rows and replaces the copy. */
  protected abstract load(): Promise<void>;

  async start(refreshMs: number): Promise<void> {
    await this.reload();
    this.timer = setInterval(() => this.reload().catch(this.onError), refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * Resolves once a load that started after this call has finished: a load already under
   * way may have read before the caller's change, so one more follows it (shared by all
   * who ask meanwhile).
   */
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

  /**
   * Reloads for a change another process announced. Until it has loaded, `settling` holds
   * it, so requests route on the change rather than on what the change replaced.
   */
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

  /** An announced change still loading (never rejects), or undefined: nothing to wait for. */
  get settling(): Promise<void> | undefined {
    return this.announced;
  }
}
