import type { SignatureV4 } from "@smithy/signature-v4";
import type { OutgoingRequest } from "@/lib/providers/transport";
import type { AwsCredentials } from "./credentials";

/** The signer for a region and credentials; its libraries load with the first Bedrock channel used, not at start-up. */
async function newSigner(region: string, credentials: AwsCredentials): Promise<SignatureV4> {
  const [{ Hash }, { SignatureV4 }] = await Promise.all([import("@smithy/hash-node"), import("@smithy/signature-v4")]);
  /** Node's SHA-256 in the shape the signer constructs (with a key for HMAC). */
  class Sha256 extends Hash {
    constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
      super("sha256", secret);
    }
  }
  return new SignatureV4({ service: "bedrock", region, credentials, sha256: Sha256 });
}

/**
 * SigV4 for one channel: the signer is kept with the channel's transport, so its cache of
 * signing keys (one per day, region and service) serves every request. The body is hashed
 * as the Buffer that goes out (prepare made it one), never copied for it.
 */
export function awsSigner(region: string, credentials: AwsCredentials): (request: OutgoingRequest) => Promise<void> {
  let signer: Promise<SignatureV4> | undefined;
  return async (request) => {
    const url = new URL(request.url);
    // The Host header goes out as signed; undici would write the same, but it is signed, so it is set.
    request.headers.host = url.host;
    const signed = await (await (signer ??= newSigner(region, credentials))).sign({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      // As sent: the model id is already percent-encoded; SigV4 encodes the path once more.
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      body: request.body,
    });
    Object.assign(request.headers, signed.headers);
  };
}
