// How many entries an LRUCache keeps, without its storage for all of them up front.
//
// Given `max`, lru-cache allocates its key, value and expiry arrays at that length when it
// is made: 50,000 entries are four arrays of 400 KB of pointers, held for the life of the
// process however few entries there are, and every full collection marks each of their
// slots (about 2 ms of each collection for the gateway's three caches, measured in
// BENCHMARKS.md). Counted as a size of one per entry, the same bound lets the arrays grow
// with the entries instead.

/** LRUCache options for at most `entries` entries, each counted as one. */
export function entriesAtMost(entries: number): { maxSize: number; sizeCalculation: () => number } {
  return { maxSize: entries, sizeCalculation: one };
}

const one = () => 1;
