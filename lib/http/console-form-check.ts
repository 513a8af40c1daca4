import type { IncomingMessage } from "node:http";

// Next parses a multipart post to a console page as a server action's form; a body that
// is not the multipart it claims makes that parser throw, which Next answers with a 500.
// The body tells: it must open with the boundary the content type names and, when its
// length is announced and small (console forms are), close with that boundary too. What
// is read ahead is put back, so Next still reads the whole body.

const WHOLE_BODY_LIMIT = 1024 * 1024;

/** Why a form post's body cannot be the multipart form it claims to be, or undefined. */
export async function malformedFormPost(request: IncomingMessage): Promise<string | undefined> {
  if (request.method !== "POST") return undefined;
  const contentType = request.headers["content-type"] ?? "";
  if (!/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) return "A multipart form needs a boundary in its content type.";
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const announced = Number(request.headers["content-length"]);
  const whole = Number.isInteger(announced) && announced <= WHOLE_BODY_LIMIT;
  const head = await readAhead(request, whole ? announced : delimiter.length);
  const opens = head.length >= delimiter.length && head.subarray(0, delimiter.length).equals(delimiter);
  const closes = !whole || head.includes(Buffer.concat([delimiter, Buffer.from("--")]));
  return opens && closes ? undefined : "The body is not the multipart form its content type announces.";
}

/** At least `size` bytes of the body (fewer when it is shorter), put back for the next reader. */
async function readAhead(request: IncomingMessage, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  while (length < size) {
    const chunk = request.read() as Buffer | null;
    if (chunk !== null) {
      chunks.push(chunk);
      length += chunk.length;
      continue;
    }
    if (request.readableEnded || request.destroyed) break;
    const more = await new Promise<boolean>((resolve) => {
      const settle = (value: boolean) => () => {
        request.off("readable", onReadable).off("end", onEnd).off("error", onEnd).off("close", onEnd);
        resolve(value);
      };
      const onReadable = settle(true);
      const onEnd = settle(false);
      request.once("readable", onReadable).once("end", onEnd).once("error", onEnd).once("close", onEnd);
    });
    if (!more) break;
  }
  const head = Buffer.concat(chunks);
  // Put back in the same tick as the last read, before the stream can announce its end; a
  // body shorter than asked for is refused, and nobody reads it again.
  if (head.length >= size && head.length > 0) request.unshift(head);
  return head;
}
