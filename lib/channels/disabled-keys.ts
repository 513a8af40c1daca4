import type { Database } from "@/lib/db/client";

/** Reads of a row that kept changing before one write could land: then something is wrong. */
const MAX_ATTEMPTS = 20;

/**
 * Rewrites a channel's `disabledKeys` (pool keys the upstream refused, by fingerprint) without
 * losing an edit another process made meanwhile: the write lands only on the row as it was
 * read (its `updatedAt`, which each such write moves forward), and is made again from a fresh
 * read when the row changed in between.
 * Two processes disabling two keys of one pool at once both stay recorded.
 * `edit` answers the new map, or undefined to leave the row as it is.
 * Answers the map as it was before the write, or undefined when there is no such channel.
 */
export async function editDisabledKeys(
  database: Database,
  id: string,
  edit: (keys: Readonly<Record<string, string>>) => Record<string, string> | undefined,
): Promise<Readonly<Record<string, string>> | undefined> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const row = await database.channel.findUnique({ where: { id }, select: { disabledKeys: true, updatedAt: true } });
    if (!row) return undefined;
    const before = (row.disabledKeys ?? {}) as Record<string, string>;
    const next = edit(before);
    if (!next) return before;
    // Later than what was read even within the same millisecond, so a write read before this one never matches.
    const updatedAt = new Date(Math.max(Date.now(), row.updatedAt.getTime() + 1));
    const written = await database.channel.updateMany({ where: { id, updatedAt: row.updatedAt }, data: { disabledKeys: next, updatedAt } });
    if (written.count === 1) return before;
  }
  throw new Error(`channel ${id} changed ${MAX_ATTEMPTS} times while its disabled keys were being written`);
}
