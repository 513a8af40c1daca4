// A large body the gateway made for one upstream call (a translated turn, a relayed body
// with a member rewritten, an object encoded) is kept by nothing else once it is written,
// but undici keeps the body it was given until the answer ends: for a streamed agent turn,
// a second copy of a 300 KB request for the whole answer. Such bytes are marked here and
// the transport hands them to undici in a form it lets go of once written
// (upstream-http.ts). The client's own bytes are not marked: the request keeps them anyway
// (a usage estimate, a fallback), and that form of body costs a slower write.

/** Bodies smaller than this are not worth the slower write. */
export const ONE_USE_BYTES = 64 * 1024;

const oneUse = new WeakSet<Buffer>();

/** Marks `bytes` as made for one upstream call (when large enough to matter); returns them. */
export function forOneUse(bytes: Buffer): Buffer {
  if (bytes.length >= ONE_USE_BYTES) oneUse.add(bytes);
  return bytes;
}

/** Whether `body` is a large Buffer marked by forOneUse. */
export function isForOneUse(body: unknown): body is Buffer {
  return Buffer.isBuffer(body) && body.length >= ONE_USE_BYTES && oneUse.has(body);
}
