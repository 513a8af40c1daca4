// The benchmark's floor: the least a proxy can do. Checks a bearer token, reads the
// request body into one buffer and sends it with Content-Length through an undici pool
// (cheaper than streaming it upstream chunked) to the same path on the upstream, and pipes
// the answer back.
// Prints its port. Usage: raw-proxy.ts <upstream-origin> <token> [processes] [connections] [--scan | --parse]
// With processes > 1, node:cluster runs that many copies on one port (the floor for PROCESSES=N).
// Two references for the agent workload: --scan reads every byte once as a relay must (the
// gateway's own scan, json-scan.ts, refusing what it finds malformed), the least a
// validating relay can do; --parse sends the body through one JSON.parse and one
// JSON.stringify, the naive translation.
import cluster from "node:cluster";
import http from "node:http";
import { pipeline } from "node:stream/promises";
import { Pool } from "undici";
import { scanJson } from "../../lib/canonical/json-scan";

const args = process.argv.slice(2);
const [origin, token, processesArgument, connectionsArgument] = args.filter((argument) => !argument.startsWith("--")) as [string, string, string?, string?];
// The gateway's shape limits, loaded only for --scan: json-shape.ts reads the gateway's environment, which the plain floor must not.
const scanLimits = args.includes("--scan") ? (await import("../../lib/canonical/json-shape")).JSON_LIMITS : undefined;
const parse = args.includes("--parse");
const processes = Number(processesArgument ?? 1);
if (processes > 1 && cluster.isPrimary) {
  let printed = false;
  cluster.on("listening", (_worker, address) => {
    if (!printed) process.stdout.write(`${address.port}\n`);
    printed = true;
  });
  for (let index = 0; index < processes; index += 1) cluster.fork();
} else {
  serve();
}

function serve(): void {
  const pool = new Pool(origin, { connections: Number(connectionsArgument ?? 256) });
  const expected = `Bearer ${token}`;

  const server = http.createServer(async (request, response) => {
    if (request.headers.authorization !== expected) {
      response.writeHead(401, { "content-type": "application/json" });
      response.end('{"error":{"message":"bad key"}}');
      request.resume();
      return;
    }
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      let body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      if (scanLimits && !scanJson(body, 0, scanLimits).object) {
        response.writeHead(400, { "content-type": "application/json" });
        response.end('{"error":{"message":"not a JSON object"}}');
        return;
      }
      if (parse) body = Buffer.from(JSON.stringify(JSON.parse(body.toString("utf8"))));
      const upstream = await pool.request({
        path: request.url!,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(body.length), authorization: "Bearer upstream" },
        body,
      });
      response.writeHead(upstream.statusCode, { "content-type": String(upstream.headers["content-type"] ?? "application/json") });
      await pipeline(upstream.body, response);
    } catch {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => {
    if (processes === 1) process.stdout.write(`${(server.address() as { port: number }).port}\n`);
  });
}
