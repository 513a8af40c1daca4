import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { GEMINI_KEY, startFakeGeminiUpstream } from "../helpers/fake-gemini-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";

// Images for Gemini are fetched by the gateway itself: only from public addresses, in any
// spelling, after every redirect, with no connection ever reaching a private listener.

let gateway: Gateway;
let key: string;
let fake: Awaited<ReturnType<typeof startFakeGeminiUpstream>>;
let port: number;
let connections = 0;
let trap: net.Server;
let trap6: net.Server | undefined;
let redirector: http.Server;
let redirectorUrl: string;
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

function listen(server: net.Server, host: string, wanted = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(wanted, host, () => resolve((server.address() as net.AddressInfo).port));
  });
}

before(async () => {
  // The "internal service": any connection to it is a failure of the guard.
  trap = net.createServer((socket) => {
    connections += 1;
    socket.end("HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: 6\r\n\r\nsecret");
  });
  port = await listen(trap, "127.0.0.1");
  trap6 = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await listen(trap6, "::1", port).catch(() => (trap6 = undefined));
  // A host the operator allowed, which redirects to loopback (as a public host could).
  redirector = http.createServer((request, response) => {
    if (request.url === "/image.png") {
      response.writeHead(200, { "content-type": "image/png" });
      response.end(PNG);
      return;
    }
    // /to/<encoded URL> redirects there.
    response.writeHead(302, { location: decodeURIComponent(request.url!.slice("/to/".length)) || "/" });
    response.end();
  });
  redirectorUrl = `http://127.0.0.2:${await listen(redirector, "127.0.0.2")}`;
  fake = await startFakeGeminiUpstream();
  gateway = await startGateway({ FETCH_ALLOWED_HOSTS: "127.0.0.2" });
  assert.equal(
    (await gateway.admin("POST", "/api/admin/channels", { name: "gemini", type: "gemini", baseUrl: fake.baseUrl, apiKey: GEMINI_KEY, models: ["gemini-test"] })).status,
    201,
  );
  key = (await gateway.admin("POST", "/api/admin/tokens", { name: "ssrf" })).body.key;
});

after(async () => {
  await gateway?.stop();
  await fake?.close();
  trap?.close();
  trap6?.close();
  redirector?.close();
});

async function chatWithImage(url: string) {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "gemini-test",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "what is this" },
            { type: "image_url", image_url: { url } },
          ],
        },
      ],
    }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("SSRF guard on image URLs", () => {
  test("every spelling of a private, loopback or metadata address is a 400 before any connection", async () => {
    const urls = [
      `http://127.0.0.1:${port}/x.png`,
      `http://[::1]:${port}/x.png`,
      `http://localhost:${port}/x.png`,
      `http://localhost.:${port}/x.png`,
      `http://LOCALHOST:${port}/x.png`,
      `http://2130706433:${port}/x.png`,
      `http://0x7f000001:${port}/x.png`,
      `http://0x7f.0.0.1:${port}/x.png`,
      `http://0177.0.0.1:${port}/x.png`,
      `http://017700000001:${port}/x.png`,
      `http://127.1:${port}/x.png`,
      `http://127.0.1:${port}/x.png`,
      `http://0.0.0.0:${port}/x.png`,
      `http://0:${port}/x.png`,
      `http://[::ffff:7f00:1]:${port}/x.png`,
      `http://[::ffff:127.0.0.1]:${port}/x.png`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${port}/x.png`,
      `http://[::]:${port}/x.png`,
      `http://[::127.0.0.1]:${port}/x.png`,
      `http://user:pass@127.0.0.1:${port}/x.png`,
      `http://public.example.com@127.0.0.1:${port}/x.png`,
      `http://127.0.0.1.:${port}/x.png`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://[fd00:ec2::254]/latest/meta-data/`,
      `http://100.100.100.200/latest/meta-data/`,
      `http://10.0.0.1/x.png`,
      `http://172.16.0.1/x.png`,
      `http://192.168.1.1/x.png`,
      `http://[fe80::1]/x.png`,
      `http://[fc00::1]/x.png`,
      `http://[64:ff9b::7f00:1]/x.png`,
      `http://[2002:7f00:1::]/x.png`,
      `http://224.0.0.1/x.png`,
      `file:///etc/passwd`,
      `ftp://127.0.0.1/x.png`,
      `gopher://127.0.0.1:${port}/_x`,
    ];
    for (const url of urls) {
      const { status, body } = await chatWithImage(url);
      assert.equal(status, 400, `${url}: ${JSON.stringify(body)}`);
      assert.equal(body.error.param, "image_url", url);
      assert.equal(JSON.stringify(body).includes(String(port)), false, "the URL is not quoted back");
    }
    assert.equal(connections, 0);
  });

  test("a redirect to a private address is refused at the redirect, with no connection to it", async () => {
    for (const target of [`http://127.0.0.1:${port}/x.png`, `http://[::1]:${port}/x.png`, `http://2130706433:${port}/x.png`, "http://169.254.169.254/"]) {
      const { status, body } = await chatWithImage(`${redirectorUrl}/to/${encodeURIComponent(target)}`);
      assert.equal(status, 400, `${target}: ${JSON.stringify(body)}`);
      assert.equal(body.error.code, "url_not_allowed");
    }
    assert.equal(connections, 0);
  });

  test("an allowed host's image is fetched and sent inline, through the official SDK", async () => {
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: "gemini-test",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image_url", image_url: { url: `${redirectorUrl}/image.png` } },
          ],
        },
      ],
    });
    assert.ok(completion.choices[0]!.message);
    const sent = fake.received.at(-1)!.body as any;
    const inline = sent.contents.at(-1).parts.find((part: any) => part.inlineData);
    assert.equal(inline.inlineData.data, PNG.toString("base64"));
    assert.equal(connections, 0);
  });
});
