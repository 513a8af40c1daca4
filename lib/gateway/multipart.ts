import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Busboy } from "@fastify/busboy";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { ApiRequest } from "@/lib/canonical/api-types";

// Uploads (image edits, transcriptions) are read as they arrive and their files spooled
// to disk, never held whole in memory; the form is then written out again, part by part
// in the same order, for each upstream attempt (so failover can resend it). Only a field
// the caller asks to replace (the model) changes.

export interface FormPart {
  name: string;
  /** A text field's value. */
  value?: string;
  /** A file part, spooled to a temporary file. */
  file?: { filename: string; contentType: string; path: string; size: number };
}

export interface SpooledForm {
  readonly parts: readonly FormPart[];
  field(name: string): string | undefined;
  /** The form as multipart bytes with a fresh boundary, `replace` overriding text fields. */
  encode(replace?: Record<string, string>): { contentType: string; body: AsyncIterable<Uint8Array> };
  dispose(): Promise<void>;
}

const SPOOL_DIRECTORY = path.join(os.tmpdir(), "gateway-uploads");
const MAX_FIELD_BYTES = 1024 * 1024;

export function isMultipart(request: ApiRequest): boolean {
  return /^multipart\/form-data\s*;.*boundary=/i.test(request.headers.get("content-type") ?? "");
}

/** Reads a multipart body under `limitBytes` (413 past it); a malformed one is a 400. */
export async function spoolMultipart(request: ApiRequest, limitBytes: number): Promise<SpooledForm> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!isMultipart(request)) {
    throw new GatewayError("invalid_request", "This endpoint takes a multipart/form-data body (with a boundary).", { code: "invalid_content_type" });
  }
  await fs.promises.mkdir(SPOOL_DIRECTORY, { recursive: true });
  const parts: FormPart[] = [];
  const writes: Promise<void>[] = [];
  let failure: unknown;
  const parser = Busboy({ headers: { "content-type": contentType }, limits: { fieldSize: MAX_FIELD_BYTES, fields: 1000, files: 100 } });
  parser.on("field", (name, value, _nameTruncated, valueTruncated) => {
    if (valueTruncated) failure ??= new GatewayError("invalid_request", `The form field '${name}' is longer than ${MAX_FIELD_BYTES} bytes.`, { param: name });
    parts.push({ name, value });
  });
  parser.on("file", (name, stream, filename, _encoding, mimeType) => {
    const file = { filename, contentType: mimeType || "application/octet-stream", path: path.join(SPOOL_DIRECTORY, randomUUID()), size: 0 };
    parts.push({ name, file });
    stream.on("data", (chunk: Buffer) => (file.size += chunk.length));
    writes.push(pipeline(stream, fs.createWriteStream(file.path)));
  });
  const form = spooledForm(parts);
  try {
    await pipeline(Readable.from(request.bodyStream(limitBytes)), parser as unknown as Writable);
    await Promise.all(writes);
  } catch (error) {
    await form.dispose();
    if ((error as { isGatewayError?: boolean }).isGatewayError) throw error;
    throw new GatewayError("invalid_request", "The multipart/form-data body could not be read.", { code: "invalid_multipart", cause: error });
  }
  if (failure) {
    await form.dispose();
    throw failure;
  }
  return form;
}

function spooledForm(parts: FormPart[]): SpooledForm {
  return {
    parts,
    field: (name) => parts.find((part) => part.name === name && part.value !== undefined)?.value,
    encode(replace = {}) {
      const boundary = `----gateway${randomBytes(12).toString("hex")}`;
      return { contentType: `multipart/form-data; boundary=${boundary}`, body: encodeParts(parts, boundary, replace) };
    },
    async dispose() {
      await Promise.all(parts.map((part) => (part.file ? fs.promises.rm(part.file.path, { force: true }) : undefined)));
    },
  };
}

// Names and filenames are escaped as browsers do (WHATWG multipart/form-data encoding).
const escapeName = (value: string) => value.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");

async function* encodeParts(parts: readonly FormPart[], boundary: string, replace: Record<string, string>): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(part.name)}"`;
    if (part.file) {
      head += `; filename="${escapeName(part.file.filename)}"\r\nContent-Type: ${part.file.contentType.replace(/[\r\n]/g, "")}\r\n\r\n`;
      yield Buffer.from(head);
      for await (const chunk of fs.createReadStream(part.file.path)) yield chunk as Buffer;
      yield Buffer.from("\r\n");
    } else {
      yield Buffer.from(`${head}\r\n\r\n${replace[part.name] ?? part.value ?? ""}\r\n`);
    }
  }
  yield Buffer.from(`--${boundary}--\r\n`);
}
