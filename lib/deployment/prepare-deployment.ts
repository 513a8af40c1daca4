import { seedAdmin } from "@/lib/auth/seed-admin";
import { ensureSetupCode } from "@/lib/auth/setup-code";
import { loadSecrets } from "@/lib/crypto/secrets";
import { createDatabase } from "@/lib/db/client";
import { resolveDatabaseLocation, type DatabaseLocation } from "@/lib/db/database-url";
import { migrate } from "@/lib/db/migrate";
import { env } from "@/lib/env";

export interface PreparedDeployment {
  /** Migrations applied by this start. */
  applied: string[];
  /** The first admin was created from ADMIN_EMAIL/ADMIN_PASSWORD. */
  seededAdmin: boolean;
  /** The one-time code /setup asks for, while no account exists. */
  setupCode: string | undefined;
}

/**
 * What a start does once, before any process serves: migrate the store, generate the
 * secrets files, seed the first admin, and make the setup code. `npm start` runs it in the
 * launcher before it forks workers (PROCESSES=N), so workers never race over it; each
 * instance of a many-instance deployment runs it too, which the migration lock and
 * create-once writes make safe.
 */
export async function prepareDeployment(location: DatabaseLocation = resolveDatabaseLocation()): Promise<PreparedDeployment> {
  const applied = await migrate(location);
  const secrets = loadSecrets();
  const database = await createDatabase(location);
  try {
    const seededAdmin = await seedAdmin(database, env.ADMIN_EMAIL, env.ADMIN_PASSWORD);
    const keys = { encryptionKeys: [secrets.encryptionKey, ...secrets.previousEncryptionKeys] };
    const setupCode = await ensureSetupCode(database, keys, env.DATA_DIR);
    return { applied, seededAdmin, setupCode };
  } finally {
    await database.$disconnect();
  }
}
