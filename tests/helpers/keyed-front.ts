import http from "node:http";
import type { AddressInfo } from "node:net";

// A loopback upstream account with a pool of keys, in front of a vendor fake: it takes any
// of its keys (x-api-key or Bearer), records which one each request came with, and passes
// the request on to the fake with the fake's own key. It can refuse one key (401) or fail
// every request (500), as a revoked key or a failing upstream would.

export interface KeyedFront {
  /** The base URL a channel points at (the fake's path layout, e.g. `/v1`). */
  baseUrl: string;
  /** Requests seen: the key they came with and the last user text of their body. */
  received: { key: string; prompt: string }[];
  /** Keys answered with 401 (a revoked key). */
  refused: Set<string>;
  /** While set, every request is answered with this status (a failing upstream). */
  failWith: number | null;
  close(): Promise<void>;
}

export async function startKeyedFront(options: { keys: string[]; target: string; targetKey: string; path?: string }): Promise<KeyedFront> {
  const front: Omit<KeyedFront, "baseUrl" | "close"> = { received: [], refused: new Set(), failWith: null };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const key = String(request.headers["x-api-key"] ?? String(request.headers.authorization ?? "").replace(/^Bearer /, ""));
    const body = raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as { messages?: { role: string; content: unknown }[] }) : {};
    front.received.push({ key, prompt: lastText(body.messages ?? []) });
    const refuse = (status: number, message: string) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify({ type: "error", error: { type: status === 401 ? "authentication_error" : "api_error", message } }));
    };
    if (!options.keys.includes(key) || front.refused.has(key)) return refuse(401, "invalid x-api-key");
    if (front.failWith !== null) return refuse(front.failWith, "Internal server error");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === "string" && !["host", "content-length", "connection", "x-api-key", "authorization"].includes(name)) headers[name] = value;
    }
    headers["x-api-key"] = options.targetKey;
    const answer = await fetch(`${options.target}${request.url}`, { method: request.method, headers, body: raw.length > 0 ? raw : undefined });
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(front, {
    baseUrl: `${origin}${options.path ?? "/v1"}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function lastText(messages: { role: string; content: unknown }[]): string {
  const last = [...messages].reverse().find((message) => message.role === "user");
  if (!last) return "";
  if (typeof last.content === "string") return last.content;
  return (last.content as { text?: string }[]).map((part) => part.text ?? "").join("");
}
