// How many entries an LRUCache keeps, without its storage for all of them up front.
//
// Given `max`, lru-cache allocates its key, value and expiry arrays at that length when it
// is made: 50,000 entries are four arrays of 400 KB of pointers, held for the life of the
// process however few entries there are, and marked by every full collection. Counted as a
// size of one per entry, the same bound lets the arrays grow with the entries instead: the
// gateway's heap under load was 4 MB smaller for its three caches (BENCHMARKS.md).

/** LRUCache options for at most `entries` entries, each counted as one. */
export function entriesAtMost(entries: number): { maxSize: number; sizeCalculation: () => number } {
  return { maxSize: entries, sizeCalculation: one };
}

const one = () => 1;
