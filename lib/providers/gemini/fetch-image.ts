import { fetchPublicUrl } from "@/lib/net/fetch-public-url";
import type { AttemptContext } from "@/lib/providers/provider";

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Gemini takes images inline: an http(s) image URL is fetched (public addresses only) and sent as base64. */
export async function fetchImage(url: string, context: AttemptContext): Promise<{ mimeType: string; data: string }> {
  const { contentType, body } = await fetchPublicUrl(url, { maxBytes: MAX_IMAGE_BYTES, timeoutMs: 30_000, accept: "image/*", signal: context.signal, param: "image_url" });
  const mimeType = contentType.split(";")[0]!.trim();
  return { mimeType: mimeType.startsWith("image/") ? mimeType : "image/jpeg", data: body.toString("base64") };
}
