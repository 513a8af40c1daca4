import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { checkChannelDraft } from "@/lib/channels/check-channel";
import { providers } from "@/lib/providers/registry";
import { UpstreamHttp } from "@/lib/providers/upstream-http";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { testChannel } from "../helpers/in-memory-core";

// The check a channel gets before it is saved, against real loopback servers: a fix is
// suggested only when the check tried it and found an API there, and a web page is named
// as one, never pasted into the message.

let upstream: FakeUpstream;
let webSite: http.Server;
let webOrigin = "";
const upstreamHttp = new UpstreamHttp({ connections: 4 });
const runtime = { upstream: upstreamHttp, providers, deploymentId: "check-test" } as unknown as Runtime;
const draft = (baseUrl: string) => testChannel("draft", { baseUrl, apiKey: UPSTREAM_API_KEY, models: ["gpt-test"], modelMap: { "gpt-test": "fake-upstream-model" } });

before(async () => {
  upstream = await startFakeOpenAIUpstream();
  // A console or landing page: every path is HTML, the unknown ones with a 404.
  webSite = http.createServer((request, response) => {
    response.writeHead(request.url === "/" ? 200 : 404, { "content-type": "text/html; charset=utf-8" });
    response.end("<!DOCTYPE html><html><head><title>Console</title></head><body>Not found</body></html>");
  });
  await new Promise<void>((resolve) => webSite.listen(0, "127.0.0.1", resolve));
  webOrigin = `http://127.0.0.1:${(webSite.address() as AddressInfo).port}`;
});
after(async () => {
  await upstreamHttp.close();
  await upstream.close();
  webSite.closeAllConnections();
  await new Promise<void>((resolve) => webSite.close(() => resolve()));
});

describe("the channel check before a save", () => {
  test("a base URL without /v1 where /v1 answers: the fix is suggested, having been tried", async () => {
    const origin = upstream.baseUrl.replace(/\/v1$/, "");
    const check = await checkChannelDraft(runtime, draft(origin));
    assert.equal(check.ok, false);
    assert.equal(check.suggestion, `${origin}/v1`);
    assert.match(check.error!, /did you mean .*\/v1\?/);
  });

  test("a base URL where neither it nor its /v1 answers: no URL is suggested", async () => {
    const origin = upstream.baseUrl.replace(/\/v1$/, "");
    const check = await checkChannelDraft(runtime, draft(`${origin}/api`));
    assert.equal(check.ok, false);
    assert.equal(check.suggestion, undefined);
    assert.doesNotMatch(check.error!, /did you mean/);
    assert.doesNotMatch(check.error!, /\/api\/v1/);
    assert.match(check.error!, /no such endpoint under .*\/api .*check the channel's base URL/);
  });

  test("a web page: named as one with its status, never its markup, and nothing suggested", async () => {
    const check = await checkChannelDraft(runtime, draft(`${webOrigin}/console`));
    assert.equal(check.ok, false);
    assert.equal(check.suggestion, undefined);
    assert.match(check.error!, /\/console serves a web page \(HTTP 404, text\/html\), not an API/);
    assert.doesNotMatch(check.error!, /<|DOCTYPE|did you mean/i);
  });

  test("a refused connection and an unknown host read differently", async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await checkChannelDraft(runtime, draft(`http://127.0.0.1:${port}/v1`));
    assert.match(refused.error!, /refused the connection/);
    const unknown = await checkChannelDraft(runtime, draft("http://no-such-host.invalid/v1"));
    assert.match(unknown.error!, /could not be found \(DNS lookup failed/);
  });
});
