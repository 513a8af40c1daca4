// Upstream error messages sometimes quote the key they were given ("Incorrect API key
// provided: sk-abc***xyz"). Nothing that looks like a credential leaves the gateway.
const KEY_PATTERN = /\b(sk|pk|rk|key|sess)-[A-Za-z0-9_*-]{6,}/g;

export function scrubSecrets(text: string, secrets: (string | undefined)[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 6) result = result.split(secret).join("[redacted]");
  }
  return result.replace(KEY_PATTERN, "[redacted]");
}
