import http from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocketServer } from "ws";

// A loopback OpenAI realtime WebSocket: checks the channel key and the subprotocols it
// was offered, answers `response.create` with a text delta and `response.done` (usage).

export interface FakeRealtime {
  baseUrl: string;
  /** What each connection brought: its headers and offered subprotocols. */
  connections: { headers: http.IncomingHttpHeaders; url: string; protocols: string[] }[];
  /** Refuse every upgrade with this answer instead (a status, and headers such as Retry-After). */
  refuse: { status: number; headers?: Record<string, string> } | null;
  close(): Promise<void>;
}

export async function startFakeRealtimeUpstream(apiKey: string): Promise<FakeRealtime> {
  const connections: FakeRealtime["connections"] = [];
  const fake = { refuse: null as FakeRealtime["refuse"] };
  const server = http.createServer((_request, response) => response.writeHead(404).end());
  const sockets = new WebSocketServer({ noServer: true, handleProtocols: (protocols) => (protocols.has("realtime") ? "realtime" : false) });
  server.on("upgrade", (request, socket, head) => {
    const protocols = String(request.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    connections.push({ headers: request.headers, url: request.url ?? "", protocols });
    if (fake.refuse) {
      const body = JSON.stringify({ error: { message: `refused with ${fake.refuse.status}`, type: "invalid_request_error" } });
      const headers = Object.entries({ ...fake.refuse.headers, "content-type": "application/json", "content-length": String(body.length) })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.end(`HTTP/1.1 ${fake.refuse.status} Refused\r\n${headers}\r\n${body}`);
      return;
    }
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      socket.end("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => {
      client.send(
        JSON.stringify({ type: "session.created", event_id: "event_1", session: { id: "sess_1", model: new URL(request.url ?? "/", "http://x").searchParams.get("model") } }),
      );
      client.on("message", (data) => {
        const event = JSON.parse(data.toString()) as { type: string };
        if (event.type !== "response.create") return;
        client.send(JSON.stringify({ type: "response.created", event_id: "event_2", response: { id: "resp_rt1", status: "in_progress" } }));
        client.send(JSON.stringify({ type: "response.output_text.delta", event_id: "event_3", response_id: "resp_rt1", delta: "Hello from realtime" }));
        client.send(
          JSON.stringify({
            type: "response.done",
            event_id: "event_4",
            response: { id: "resp_rt1", status: "completed", usage: { total_tokens: 30, input_tokens: 18, output_tokens: 12, input_token_details: { cached_tokens: 4 } } },
          }),
        );
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(fake, {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
