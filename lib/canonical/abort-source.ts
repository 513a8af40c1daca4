// What the request path needs of "the client went away" or "the deadline passed": an
// AbortSignal is one, and so is LightAbort, which costs a few objects where an
// AbortController costs microseconds a request on Node 20 (EventTarget set-up, listener
// bookkeeping). undici takes either as a request's signal.

/** A signal as the request path uses it: read, and listened to for its one abort. */
export interface AbortSource {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** An abort that happens once; a real AbortSignal is made only for an API that needs one. */
export class LightAbort implements AbortSource {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | undefined;
  private controller: AbortController | undefined;

  addEventListener(_type: "abort", listener: () => void): void {
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  abort(reason: unknown = new DOMException("This operation was aborted", "AbortError")): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
    this.controller?.abort(reason);
  }

  /** The same abort as an AbortSignal (AbortSignal.any, fetch, timers), made on first use. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }
}

/** An AbortSignal for APIs that take nothing else: the source itself when it is one. */
export function abortSignalOf(source: AbortSource): AbortSignal {
  return source instanceof LightAbort ? source.signal : (source as AbortSignal);
}
