import { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { safeJson } from "@/lib/canonical/json";

// A Bedrock channel's key is either AWS credentials, as JSON (requests are signed with
// SigV4), or a Bedrock API key (sent as a Bearer token). Anything that opens like JSON is
// meant as credentials, so a mistyped one is reported rather than sent as a Bearer key.

const awsCredentialsSchema = z.object({
  accessKeyId: z.string().trim().min(1),
  secretAccessKey: z.string().trim().min(1),
  sessionToken: z.string().trim().min(1).optional(),
});

export type AwsCredentials = z.infer<typeof awsCredentialsSchema>;

export type BedrockKey =
  | { kind: "aws"; credentials: AwsCredentials }
  | { kind: "api-key"; key: string }
  /** Unusable: the reason, without the key. */
  | { kind: "invalid"; reason: string };

const AWS_KEY_HELP =
  'AWS credentials are written {"accessKeyId": "AKIA...", "secretAccessKey": "..."}, with "sessionToken": "..." added for temporary ones; a Bedrock API key is pasted as it is, without braces.';

export function readBedrockKey(apiKey: string | undefined): BedrockKey {
  const key = apiKey?.trim() ?? "";
  if (!key) return { kind: "invalid", reason: "The channel has no key: give AWS credentials as JSON or a Bedrock API key." };
  if (!key.startsWith("{")) return { kind: "api-key", key };
  const json = safeJson(key);
  if (json === undefined) {
    return {
      kind: "invalid",
      reason: `The channel's key starts with { but is not valid JSON (names and values in double quotes, commas between them). ${AWS_KEY_HELP}`,
    };
  }
  const parsed = awsCredentialsSchema.safeParse(json);
  if (!parsed.success) {
    const missing = ["accessKeyId", "secretAccessKey"].filter((field) => typeof (json as Record<string, unknown> | null)?.[field] !== "string");
    const what = missing.length > 0 ? `it has no ${missing.map((field) => `"${field}"`).join(" or ")}` : "a field is empty or not a string";
    return { kind: "invalid", reason: `The channel's key is JSON but not AWS credentials: ${what}. ${AWS_KEY_HELP}` };
  }
  return { kind: "aws", credentials: parsed.data };
}

/** The parts of a key that must never appear in a message. */
export function keySecrets(key: BedrockKey, apiKey: string | undefined): string[] {
  const secrets = [apiKey ?? ""];
  if (key.kind === "aws") secrets.push(key.credentials.accessKeyId, key.credentials.secretAccessKey, key.credentials.sessionToken ?? "");
  if (key.kind === "api-key") secrets.push(key.key);
  return secrets.filter((secret) => secret.length >= 6);
}

/** The channel's key cannot be used: the channel's fault, never the caller's. */
export function unusableKeyError(reason: string): GatewayError {
  return new GatewayError("bad_gateway", reason, { code: "upstream_misconfigured" });
}
