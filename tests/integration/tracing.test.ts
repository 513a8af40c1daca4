import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { startGateway } from "../helpers/start-gateway";

// With OTEL_EXPORTER_OTLP_ENDPOINT set, each upstream attempt is a span sent over OTLP/HTTP.

test("a span per upstream attempt reaches the OTLP collector, with channel and model", async () => {
  const exports: string[] = [];
  const collector = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.url === "/v1/traces") exports.push(Buffer.concat(chunks).toString("utf8"));
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  let requestId = "";
  const gateway = await startGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}` });
  try {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: "traced", type: "mock", models: ["mock-model"] })).status, 201);
    const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "tracing" })).body.key;
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "mock-model", messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(response.status, 200);
    requestId = response.headers.get("x-request-id")!;
    await response.arrayBuffer();
  } finally {
    // Stopping flushes the span processor.
    await gateway.stop();
    collector.close();
  }
  const spans = exports.join("\n");
  assert.match(spans, /"upstream attempt"/);
  assert.match(spans, /gateway\.channel[^}]*"traced"/);
  assert.match(spans, /gateway\.model[^}]*"mock-model"/);
  assert.ok(spans.includes(requestId), "the span names the request");
});
