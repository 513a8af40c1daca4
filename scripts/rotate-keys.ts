// `npm run rotate-keys`: re-seals every channel's upstream key with the current
// ENCRYPTION_KEY. Run it after setting ENCRYPTION_KEY to the new key and
// ENCRYPTION_KEY_PREVIOUS to the old one (see README, Security); then the old key can go.
import { decryptSecret, encryptSecret } from "@/lib/crypto/encryption";
import { loadSecrets } from "@/lib/crypto/secrets";
import { openStorage } from "@/lib/db/open-storage";

const secrets = loadSecrets();
const storage = await openStorage();
const database = storage.database;
try {
  const channels = await database.channel.findMany({ where: { apiKeyEncrypted: { not: null } }, select: { id: true, name: true, apiKeyEncrypted: true } });
  let resealed = 0;
  for (const channel of channels) {
    let plaintext: string;
    try {
      plaintext = decryptSecret(channel.apiKeyEncrypted!, [secrets.encryptionKey, ...secrets.previousEncryptionKeys]);
    } catch {
      process.stderr.write(`Channel "${channel.name}" (${channel.id}): no configured key opens its API key; set ENCRYPTION_KEY_PREVIOUS.\n`);
      process.exitCode = 1;
      continue;
    }
    await database.channel.update({ where: { id: channel.id }, data: { apiKeyEncrypted: encryptSecret(plaintext, secrets.encryptionKey) } });
    resealed += 1;
  }
  process.stdout.write(`Re-sealed ${resealed} of ${channels.length} channel keys with the current ENCRYPTION_KEY.\n`);
} finally {
  await storage.logStore.close();
  await database.$disconnect();
}
