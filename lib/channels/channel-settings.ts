import { GatewayError } from "@/lib/canonical/gateway-error";
import { decryptSecret, encryptSecret } from "@/lib/crypto/encryption";
import type { Provider } from "@/lib/providers/provider";

// A channel type's own settings (an API version, a region, a service-account key), kept
// in the channel row's `settings` JSON. Secret fields are stored sealed like channel keys,
// as {"sealed": "<ciphertext>"}, decrypted only into the in-memory channel, and never
// shown again: the channel JSON lists which are set.

type Sealed = { sealed: string };

const isSealed = (value: unknown): value is Sealed => typeof value === "object" && value !== null && typeof (value as { sealed?: unknown }).sealed === "string";

const asObject = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * Validates settings for a channel type and seals its secrets for storing. A secret left
 * out of an update keeps its stored value (the console never has it to send back).
 * `keys`: the current encryption key first, then older ones.
 */
export function settingsToStore(provider: Provider, typeName: string, input: Record<string, unknown> | undefined, stored: unknown, keys: Buffer[]): Record<string, unknown> {
  if (!provider.settings) {
    if (input && Object.keys(input).length > 0) {
      throw new GatewayError("invalid_request", `Channels of type '${typeName}' take no settings.`, { param: "settings" });
    }
    return {};
  }
  const secrets = new Set(provider.settings.fields.filter((field) => field.secret).map((field) => field.name));
  const previous = openSettings(stored, keys);
  const merged: Record<string, unknown> = { ...(input ?? {}) };
  for (const name of secrets) if (merged[name] === undefined && previous[name] !== undefined) merged[name] = previous[name];
  const result = provider.settings.schema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = ["settings", ...(issue?.path ?? []).map(String)].join(".");
    throw new GatewayError("invalid_request", `Invalid ${path}: ${issue?.message ?? "invalid value"}.`, { param: path });
  }
  return Object.fromEntries(
    Object.entries(result.data)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => [name, secrets.has(name) ? { sealed: encryptSecret(String(value), keys[0]!) } : value]),
  );
}

/** The settings as the transport uses them: secrets decrypted. */
export function openSettings(stored: unknown, keys: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(asObject(stored)).map(([name, value]) => [name, isSealed(value) ? decryptSecret(value.sealed, keys) : value]));
}

/** The settings as an answer may show them: secrets left out, named in `secretsSet`. */
export function publicSettings(stored: unknown): { settings: Record<string, unknown>; secretsSet: string[] } {
  const settings: Record<string, unknown> = {};
  const secretsSet: string[] = [];
  for (const [name, value] of Object.entries(asObject(stored))) {
    if (isSealed(value)) secretsSet.push(name);
    else settings[name] = value;
  }
  return { settings, secretsSet };
}
