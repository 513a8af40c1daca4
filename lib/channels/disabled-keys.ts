import { setTimeout as sleep } from "node:timers/promises";
import type { Database } from "@/lib/db/client";

/** Reads of a row that kept changing before one write could land: then something is wrong. */
const MAX_ATTEMPTS = 20;

/**
 * Rewrites a channel's `disabledKeys` (pool keys the upstream refused, by fingerprint) without
 * losing an edit another process made meanwhile: the write lands only on the row as it was
 * read (its `updatedAt`, which each such write moves forward), and is made again from a fresh
 * read when the row changed in between. Two processes disabling two keys of one pool at once
 * both stay recorded.
 *
 * `edit` answers the new map, or undefined to leave the row as it is. Answers the map as it
 * was before, and whether this call changed it; undefined when there is no such channel.
 */
export async function editDisabledKeys(
  database: Database,
  id: string,
  edit: (keys: Readonly<Record<string, string>>) => Record<string, string> | undefined,
): Promise<{ before: Readonly<Record<string, string>>; changed: boolean } | undefined> {
  let missed: number | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const row = await database.channel.findUnique({ where: { id }, select: { disabledKeys: true, updatedAt: true } });
    if (!row) return undefined;
    const before = (row.disabledKeys ?? {}) as Record<string, string>;
    const next = edit(before);
    if (!next) return { before, changed: false };
    const read = row.updatedAt.getTime();
    // Later than what was read even within the same millisecond, so a write read before this one never matches.
    const updatedAt = new Date(Math.max(Date.now(), read + 1));
    // A row whose updatedAt was not written by this client (a seeded row's text form) never
    // matches the value read back: when nobody wrote since the last miss, it is written as is.
    const where = missed === read ? { id } : { id, updatedAt: row.updatedAt };
    const written = await database.channel.updateMany({ where, data: { disabledKeys: next, updatedAt } });
    if (written.count === 1) return { before, changed: true };
    missed = read;
    // Many processes refused by one revoked key at once: they take turns, not all at the same moment.
    await sleep(Math.random() * 5 * (attempt + 1));
  }
  throw new Error(`channel ${id} changed ${MAX_ATTEMPTS} times while its disabled keys were being written`);
}
