import { PassThrough, pipeline, Readable } from "node:stream";
import zlib from "node:zlib";
import { GatewayError } from "@/lib/canonical/gateway-error";

// Request bodies may arrive compressed (gzip, deflate, br), as some clients send large
// agent payloads; the size limit applies to the decompressed bytes, so a small bomb
// cannot expand past it. Anything else is a 415 before a byte is read.

const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** The decoders for a `content-encoding` header, in the order to apply them; throws a 415 for unknown codings. */
export function contentDecoders(header: string | null): (() => NodeJS.ReadWriteStream)[] {
  if (!header) return [];
  const codings = header
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length > 2) throw unsupported(header);
  return codings.reverse().map((coding) => DECODERS[coding] ?? throwUnsupported(header));
}

function unsupported(header: string): GatewayError {
  return new GatewayError("unsupported_media_type", `Content-Encoding '${header.slice(0, 40)}' is not accepted; send the body uncompressed, or as gzip, deflate or br.`, {
    code: "unsupported_content_encoding",
  });
}

function throwUnsupported(header: string): never {
  throw unsupported(header);
}

/** The body with its content codings undone; a corrupt compressed body is a 400. */
export async function* decodeContent(source: AsyncIterable<Uint8Array>, decoders: (() => NodeJS.ReadWriteStream)[]): AsyncGenerator<Uint8Array> {
  const output = new PassThrough();
  pipeline([Readable.from(source, { objectMode: false }), ...decoders.map((create) => create()), output], (error) => {
    if (error) output.destroy(error);
  });
  try {
    for await (const chunk of output as AsyncIterable<Uint8Array>) yield chunk;
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError("invalid_request", "The compressed request body could not be decompressed.", { code: "invalid_content_encoding" });
  } finally {
    output.destroy();
  }
}
