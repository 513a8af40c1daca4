import type { Database } from "@/lib/db/client";

/**
 * A lease held through a database row: what processes sharing one SQLite file (PROCESSES=N
 * without Redis) have in common. Taken when free, expired or already ours; one UPDATE
 * decides, and a first-ever take that loses the race hits the primary key.
 */
export async function acquireDatabaseLease(database: Database, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs);
  const { count } = await database.lease.updateMany({
    where: { name, OR: [{ holder }, { expiresAt: { lt: now } }] },
    data: { holder, expiresAt },
  });
  if (count > 0) return true;
  try {
    await database.lease.create({ data: { name, holder, expiresAt } });
    return true;
  } catch {
    return false; // another process holds it
  }
}

export async function releaseDatabaseLease(database: Database, name: string, holder: string): Promise<void> {
  await database.lease.deleteMany({ where: { name, holder } });
}
