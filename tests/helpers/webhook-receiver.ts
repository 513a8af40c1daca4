import http from "node:http";
import type { AddressInfo } from "node:net";

// A loopback webhook receiver: records every delivery (headers and raw body), answers
// `state.failures` 500s first and 200s after, and lets a test wait for a delivery.

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: {
    id: string;
    event: string;
    at: string;
    text: string;
    subject: { kind: string; id: string; name: string };
    channel?: { id: string; name: string; reason: string };
    window?: { window: string; unit: string; limit: number; used: number; resetsAt: string | null };
    percent?: number;
  };
}

/** A loopback receiver that answers `failures` 500s first, then 200s, and can be waited on. */
export async function startWebhookReceiver() {
  const received: ReceivedDelivery[] = [];
  const answered: ReceivedDelivery[] = [];
  const waiters: { match: (entry: ReceivedDelivery) => boolean; resolve: (entry: ReceivedDelivery) => void }[] = [];
  const state = { failures: 0 };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const entry: ReceivedDelivery = { headers: request.headers, raw, body: JSON.parse(raw) };
    received.push(entry);
    if (state.failures > 0) {
      state.failures -= 1;
      response.writeHead(500).end("not now");
      return;
    }
    response.writeHead(200).end("ok");
    answered.push(entry);
    for (const waiter of waiters.splice(0)) {
      if (waiter.match(entry)) waiter.resolve(entry);
      else waiters.push(waiter);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    state,
    /** The first delivery answered 200 that matches, already received or still to come. */
    next(match: (entry: ReceivedDelivery) => boolean): Promise<ReceivedDelivery> {
      const done = answered.find(match);
      if (done) return Promise.resolve(done);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
