import { GatewayError } from "@/lib/canonical/gateway-error";
import type { CallContext } from "@/lib/providers/provider";

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Gemini takes images inline: an http(s) image URL is fetched and sent as base64. */
export async function fetchImage(url: string, context: CallContext): Promise<{ mimeType: string; data: string }> {
  let response;
  try {
    response = await context.http.send({ url, method: "GET", headers: { accept: "image/*" }, signal: context.signal, timeouts: { connectMs: 10_000, firstByteMs: 30_000, idleMs: 30_000, totalMs: 30_000 } });
  } catch {
    throw new GatewayError("invalid_request", `Could not download the image at ${url}.`, { param: "image_url" });
  }
  if (response.status >= 400) {
    await response.body.dump();
    throw new GatewayError("invalid_request", `Downloading the image at ${url} failed with HTTP ${response.status}.`, { param: "image_url" });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_IMAGE_BYTES) {
      response.body.destroy();
      throw new GatewayError("invalid_request", `The image at ${url} is larger than ${MAX_IMAGE_BYTES} bytes.`, { param: "image_url" });
    }
    chunks.push(chunk as Buffer);
  }
  const contentType = String(response.headers["content-type"] ?? "").split(";")[0]!.trim();
  return { mimeType: contentType.startsWith("image/") ? contentType : "image/jpeg", data: Buffer.concat(chunks).toString("base64") };
}
