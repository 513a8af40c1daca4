import http from "node:http";
import type { AddressInfo } from "node:net";

// The shared skeleton of the loopback vendor fakes: records each request (headers,
// JSON body, whether the gateway hung up early) and hands it to a vendor script.

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The body as it came, byte for byte (as UTF-8 text). */
  raw: string;
  closedEarly: boolean;
}

export interface FakeServer {
  origin: string;
  received: ReceivedRequest[];
  /** Requests the fake rejected as invalid for its vendor, with the reason. */
  rejected: string[];
  close(): Promise<void>;
}

export type FakeHandler = (request: ReceivedRequest, response: http.ServerResponse, server: FakeServer) => Promise<void> | void;

export async function startFakeServer(handle: FakeHandler): Promise<FakeServer> {
  const state = { received: [] as ReceivedRequest[], rejected: [] as string[] };
  let fake: FakeServer;
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const record: ReceivedRequest = {
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body: parseBody(text, request.headers["content-type"]),
      raw: text,
      closedEarly: false,
    };
    state.received.push(record);
    response.on("close", () => {
      if (!response.writableFinished) record.closedEarly = true;
    });
    try {
      await handle(record, response, fake);
    } catch (error) {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: String(error) } }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake = {
    origin: `http://127.0.0.1:${port}`,
    received: state.received,
    rejected: state.rejected,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** JSON as JSON, a form as its fields (an OAuth token request), anything else as undefined. */
function parseBody(text: string, contentType: string | undefined): any {
  if (!text) return undefined;
  if (contentType?.startsWith("application/x-www-form-urlencoded")) return Object.fromEntries(new URLSearchParams(text));
  return JSON.parse(text);
}

export function lastUserText(messages: { role: string; content?: unknown; parts?: unknown }[]): string {
  const last = [...messages].reverse().find((message) => message.role === "user");
  if (!last) return "";
  const content = (last.content ?? last.parts) as unknown;
  if (typeof content === "string") return content;
  return (content as { type?: string; text?: string }[]).map((part) => part.text ?? "").join("");
}

export function words(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}
