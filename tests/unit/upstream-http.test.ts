import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import { forOneUse } from "@/lib/canonical/one-use-bytes";
import { UpstreamHttp, type Timeouts } from "@/lib/providers/upstream-http";

// The upstream client against real loopback sockets: every failure, while connecting or
// while reading the body, is typed where it happens.

let server: http.Server;
let origin = "";
const client = new UpstreamHttp({ connections: 4 });
const generous: Timeouts = { connectMs: 2000, firstByteMs: 2000, idleMs: 2000, totalMs: 0 };

before(async () => {
  server = http.createServer((request, response) => {
    switch (request.url) {
      case "/ok":
        response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
        return;
      case "/not-json":
        response.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
        return;
      case "/silent":
        return; // never answers
      case "/cut":
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write("data: one\n\n");
        setTimeout(() => response.socket?.destroy(), 30);
        return;
      case "/held": {
        // Says how much it received, then holds the answer open (a long streamed answer).
        let received = 0;
        request.on("data", (chunk: Buffer) => {
          received += chunk.length;
        });
        request.on("end", () => {
          response.writeHead(200, { "content-type": "text/plain" });
          response.write(`${received} ${request.headers["content-length"]} ${request.headers["transfer-encoding"] ?? "-"}`);
        });
        return;
      }
      case "/trickle": {
        response.writeHead(200, { "content-type": "text/plain" });
        const timer = setInterval(() => response.write("."), 20);
        response.on("close", () => clearInterval(timer));
        return;
      }
      default:
        response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const send = (path: string, timeouts: Partial<Timeouts> = {}, signal = new AbortController().signal) =>
  client.send({ url: `${origin}${path}`, method: "GET", headers: {}, signal, timeouts: { ...generous, ...timeouts } });

describe("upstream-http", () => {
  test("an answer's status, headers and JSON body", async () => {
    const response = await send("/ok");
    assert.equal(response.status, 200);
    assert.equal(response.headers["content-type"], "application/json");
    assert.deepEqual(await response.body.json(), { ok: true });
  });

  test("a 200 that is not JSON is the upstream's fault: 502 invalid_upstream_response", async () => {
    const response = await send("/not-json");
    await assert.rejects(response.body.json(), (error) => isGatewayError(error) && error.status === 502 && error.code === "invalid_upstream_response");
  });

  test("a refused connection is a 502 upstream_unreachable", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await assert.rejects(
      client.send({ url: `http://127.0.0.1:${port}/x`, method: "GET", headers: {}, signal: new AbortController().signal, timeouts: generous }),
      (error) => isGatewayError(error) && error.status === 502 && error.code === "upstream_unreachable",
    );
  });

  test("connection failures say which one it was: DNS, a refused port, TLS", async () => {
    const attempt = (url: string) =>
      client.send({ url, method: "GET", headers: {}, signal: new AbortController().signal, timeouts: generous }).then(
        () => assert.fail("expected a failure"),
        (error: unknown) => {
          assert.ok(isGatewayError(error) && error.status === 502 && error.code === "upstream_unreachable", String(error));
          return error.message;
        },
      );
    assert.match(await attempt("http://no-such-host.invalid/v1"), /^The upstream host no-such-host\.invalid could not be found \(DNS lookup failed: E[A-Z_]+\)\.$/);
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    assert.match(await attempt(`http://127.0.0.1:${port}/x`), new RegExp(`^The upstream at 127\\.0\\.0\\.1:${port} refused the connection`));
    // https:// to a plain-http server: the TLS handshake fails, and the message says what it may mean.
    assert.match(
      await attempt(`${origin.replace("http:", "https:")}/ok`),
      /^The TLS connection to the upstream at 127\.0\.0\.1:\d+ failed \([A-Z_]+\): it may speak plain http, not https\.$/,
    );
  });

  test("a web page where JSON was expected is named as one, never echoed", async () => {
    const response = await send("/not-json");
    await assert.rejects(response.body.json(), (error) => isGatewayError(error) && error.message === "The upstream serves a web page (HTTP 200, text/html), not an API.");
  });

  test("no headers within firstByteMs is a 504", async () => {
    await assert.rejects(send("/silent", { firstByteMs: 100 }), (error) => isGatewayError(error) && error.status === 504 && error.code === "upstream_timeout");
  });

  test("a connection cut while reading the body is a 502 upstream_connection_lost, after what had arrived", async () => {
    const response = await send("/cut");
    const chunks: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of response.body) chunks.push(Buffer.from(chunk).toString());
      })(),
      (error) => isGatewayError(error) && error.status === 502 && error.code === "upstream_connection_lost",
    );
    assert.match(chunks.join(""), /data: one/);
  });

  test("a body still arriving at totalMs is a 504 that names the deadline", async () => {
    const response = await send("/trickle", { totalMs: 150 });
    await assert.rejects(response.body.text(), (error) => isGatewayError(error) && error.status === 504 && /within 150 ms/.test(error.message));
  });

  test("the caller's abort stays an abort, not an upstream failure", async () => {
    const controller = new AbortController();
    const pending = send("/silent", {}, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, (error) => !isGatewayError(error));
  });

  test("a large body made for one call is let go once written, while its answer is still streaming", async () => {
    v8.setFlagsFromString("--expose-gc");
    const collect = vm.runInNewContext("gc") as () => void;
    // Built and sent inside a function of its own: afterwards only the weak reference names the body.
    const start = async () => {
      const body = forOneUse(Buffer.alloc(300_000, 0x61));
      const response = await client.send({
        url: `${origin}/held`,
        method: "POST",
        headers: {},
        body,
        signal: new AbortController().signal,
        timeouts: { ...generous, totalMs: 60_000 },
      });
      return { response, sent: new WeakRef(body) };
    };
    const { response, sent } = await start();
    const reader = response.body[Symbol.asyncIterator]();
    const first = await reader.next();
    // Sent whole, with its length, not chunked.
    assert.equal(Buffer.from(first.value!).toString(), "300000 300000 -");
    collect();
    await new Promise((resolve) => setImmediate(resolve));
    collect();
    assert.equal(sent.deref(), undefined, "the body is still held while its answer streams");
    response.body.destroy();
  });
});
