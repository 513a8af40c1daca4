/**
 * Waits for the first item of a stream, so a failure there (a dead upstream, a first
 * event that does not parse) can still fail over before anything reaches the client.
 * The returned iterable yields that item and then the rest.
 */
export async function primeStream<T>(source: AsyncIterable<T>, isFailure?: (item: T) => unknown): Promise<AsyncIterable<T>> {
  const iterator = source[Symbol.asyncIterator]();
  const first = await iterator.next();
  const failure = !first.done && isFailure?.(first.value);
  if (failure) {
    await iterator.return?.();
    throw failure;
  }
  return {
    [Symbol.asyncIterator]() {
      let pending: IteratorResult<T> | undefined = first;
      return {
        next() {
          if (pending) {
            const result = pending;
            pending = undefined;
            return Promise.resolve(result);
          }
          return iterator.next();
        },
        return(value?: unknown) {
          pending = undefined;
          return iterator.return ? iterator.return(value) : Promise.resolve({ done: true, value: undefined as T });
        },
      };
    },
  };
}

/**
 * Ends a started stream cleanly when its source fails: the failure is reported, and the
 * client gets the format's own in-stream error event instead of a cut connection. A body
 * with no such event (audio bytes) is cut, so the client sees it was incomplete. Each read
 * passes through with one promise and no generator (a stream's every read comes here).
 */
export function guardStream<T>(source: AsyncIterable<T>, onFailure: (error: unknown) => T | undefined): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const iterator = source[Symbol.asyncIterator]();
      let ended = false;
      const failed = (error: unknown): IteratorResult<T> => {
        ended = true;
        const last = onFailure(error);
        if (last === undefined) throw error;
        return { done: false, value: last };
      };
      return {
        next: () => (ended ? Promise.resolve({ done: true, value: undefined }) : iterator.next().then(undefined, failed)),
        return: (value?: unknown) => {
          ended = true;
          return iterator.return ? iterator.return(value) : Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}
