import type { IncomingMessage, ServerResponse } from "node:http";
import { contentDecoders, decodeContent } from "@/lib/http/content-encoding";
import { clientAddress } from "@/lib/http/client-address";
import { LightAbort } from "@/lib/canonical/abort-source";
import { bodyTooLarge, collectBody, isAsyncIterable, limitBody, type ApiRequest, type ApiResponse } from "@/lib/canonical/api-types";

/**
 * The request body, decompressed, with the limit enforced on what it decodes to. A body left
 * unread (a 413) closes the connection once the answer is written: what is left of a
 * compressed stream cannot be told apart from the next request, and draining a bomb costs as
 * much as reading it, so the client opens a new connection (`Connection: close` says so).
 */
async function* readNodeBody(request: IncomingMessage, response: ServerResponse, limitBytes: number): AsyncGenerator<Uint8Array> {
  try {
    const decoders = contentDecoders(request.headers["content-encoding"] ?? null);
    // Not destroyed on an early stop (a 413): the socket must live to carry the answer.
    const raw = request.iterator({ destroyOnReturn: false });
    if (decoders.length === 0) yield* limitBody(raw, request.headers["content-length"] ?? null, limitBytes);
    else yield* limitBody(decodeContent(raw, decoders), null, limitBytes);
  } finally {
    if (!request.readableEnded) {
      if (!response.headersSent) response.setHeader("connection", "close");
      request.resume();
    }
  }
}

/** The largest declared body given its buffer up front. */
const PREALLOCATE_UP_TO = 4 * 1024 * 1024;

/** The whole body through 'data' events: cheaper per request than an async iterator. */
function readWholeNodeBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limitBytes) {
    request.resume();
    return Promise.reject(bodyTooLarge(limitBytes));
  }
  return new Promise((resolve, reject) => {
    // With a declared length, each chunk is copied once into a buffer of that size as it
    // arrives (an agent's 300 KB turn is held once, not as its chunks and then their join).
    // Past PREALLOCATE_UP_TO the chunks are kept as they come: a declared length alone must
    // not reserve memory for a client that then sends its body slowly, or never.
    const whole = Number.isFinite(declared) && declared > 0 && declared <= PREALLOCATE_UP_TO ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      if (size + chunk.length > limitBytes) {
        request.removeAllListeners("data");
        request.resume();
        reject(bodyTooLarge(limitBytes));
        return;
      }
      // (Node's parser never delivers more than the declared length; were it to, the rest is kept too.)
      if (whole && chunks.length === 0 && size + chunk.length <= whole.length) chunk.copy(whole, size);
      else chunks.push(chunk);
      size += chunk.length;
    });
    request.once("end", () => {
      if (!whole) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
      else if (chunks.length === 0) resolve(size === whole.length ? whole : whole.subarray(0, size));
      else resolve(Buffer.concat([whole.subarray(0, size - chunks.reduce((sum, chunk) => sum + chunk.length, 0)), ...chunks]));
    });
    request.once("error", reject);
  });
}

export function toApiRequest(request: IncomingMessage, response: ServerResponse, url: URL, params: Record<string, string>): ApiRequest {
  // No AbortController per request: an AbortSignal is made only if something asks for one.
  const closed = new LightAbort();
  response.once("close", () => {
    if (!response.writableFinished) closed.abort();
  });
  let bodyPromise: Promise<Buffer> | undefined;
  return {
    method: request.method ?? "GET",
    url,
    headers: {
      get(name) {
        const value = request.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(", ") : value;
      },
    },
    body(limitBytes) {
      bodyPromise ??= request.headers["content-encoding"] ? collectBody(readNodeBody(request, response, limitBytes)) : readWholeNodeBody(request, limitBytes);
      return bodyPromise;
    },
    bodyStream: (limitBytes) => readNodeBody(request, response, limitBytes),
    signal: closed,
    params,
    clientAddress: () => clientAddress(request.socket.remoteAddress, request.headers["x-forwarded-for"]),
  };
}

/** Writes an ApiResponse, honouring backpressure and stopping when the client leaves. */
export async function writeApiResponse(response: ServerResponse, apiResponse: ApiResponse): Promise<void> {
  const { body } = apiResponse;
  if (!isAsyncIterable(body)) {
    // A whole body goes with its length: headers and body in one write, no chunk framing.
    if (body !== null && body !== undefined) response.setHeader("content-length", Buffer.byteLength(body));
    response.writeHead(apiResponse.status, apiResponse.headers);
    response.end(body ?? undefined);
    return;
  }
  // No flushHeaders(): streams are primed (their first event is ready), so the headers
  // leave with it in one write instead of a syscall of their own.
  response.writeHead(apiResponse.status, apiResponse.headers);
  // What is produced in one turn of the event loop leaves in one write: text events (a
  // translated stream renders several per upstream read) are joined into one chunk, and
  // bytes are corked into one writev. The turn ends when the producer waits for more input.
  let text = "";
  let scheduled = false;
  let blocked: Promise<void> | undefined;
  const flush = () => {
    if (text.length > 0 && !response.destroyed && !response.write(text)) blocked = drainOrClose(response);
    text = "";
    if (scheduled) {
      scheduled = false;
      response.uncork();
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    response.cork();
    setImmediate(flush);
  };
  try {
    for await (const chunk of body) {
      if (response.destroyed) break;
      schedule();
      if (typeof chunk === "string") {
        text += chunk;
      } else {
        // Order kept: the joined text goes before these bytes.
        if (text.length > 0) response.write(text);
        text = "";
        if (!response.write(chunk)) blocked = drainOrClose(response);
      }
      if (blocked) {
        await blocked;
        blocked = undefined;
      }
    }
  } catch {
    // The producer already recorded the failure; the client sees a cut stream.
    response.destroy();
    return;
  }
  if (response.destroyed) return;
  // The last text and the end of the body in one write: end() itself uncorks the socket.
  const rest = text;
  text = "";
  scheduled = false;
  response.end(rest.length > 0 ? rest : undefined);
}

function drainOrClose(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off("drain", done);
      response.off("close", done);
      resolve();
    };
    response.once("drain", done);
    response.once("close", done);
  });
}
