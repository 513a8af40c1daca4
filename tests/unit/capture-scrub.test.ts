import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RecordingUpstream, storedForViewer, type UpstreamExchange } from "@/lib/providers/recording-upstream";
import { IteratedBody, type UpstreamClient, type UpstreamRequest, type UpstreamResponse } from "@/lib/providers/upstream-http";

// What the Playground's recorder keeps: every credential the gateway sent, in any of the
// headers providers use or in the URL, is cut from every text an upstream echoes it in, and
// a viewer who is not an administrator keeps the channel's name only (issue 29, item 4).

const ORIGIN = "http://10.1.2.3:8443";
const timeouts = { connectMs: 1000, firstByteMs: 1000, idleMs: 1000, totalMs: 0 };

class TextBody extends IteratedBody {
  constructor(private readonly content: string) {
    super();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    yield new TextEncoder().encode(this.content);
  }
  async dump(): Promise<void> {}
  destroy(): void {}
}

/** An upstream that quotes back everything it was sent: address, headers and all. */
const echoing: UpstreamClient = {
  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const quoted = JSON.stringify({ error: { message: `refused ${request.url} with ${JSON.stringify(request.headers)}` } });
    return { status: 403, headers: { "content-type": "application/json", "x-seen": JSON.stringify(request.headers) }, body: new TextBody(quoted) };
  },
};

// Plain random-looking strings: only knowing what was sent can tell them from text.
const SENT = {
  authorization: "Bearer Tq4Wn8Zr1Yb6Kc3Hv",
  "x-api-key": "Gm2Xp7Ld5Sa9Ej4Uo",
  "x-goog-api-key": "Bz6Cn1Vf8Rk3Wq5Yt",
  "api-key": "Hs9Dj2Mp4Lx7Ng1Qe",
  "x-amz-security-token": "Fw3Ko8Tb5Iv2Ra6Pc",
};
const AWS_KEY_ID = "AKIAQX7LM2PZ9WV4RT8K";
const AWS_SIGNATURE = `AWS4-HMAC-SHA256 Credential=${AWS_KEY_ID}/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=0f3c9a`;
const QUERY_KEY = "Ye5Ua1Oi7Pl3Kj9Hg";
const URL_PASSWORD = "Nm4Bv8Cx2Zl6Kj1Wq";
const UNSENT_POOL_KEY = "Rt7Ey3Wq9Ui5Op1As";
const ALL = [...Object.values(SENT).map((value) => value.replace(/^Bearer /, "")), AWS_KEY_ID, QUERY_KEY, URL_PASSWORD, UNSENT_POOL_KEY];

async function record(): Promise<RecordingUpstream> {
  const recorder = new RecordingUpstream(echoing, () => "internal-pool");
  const send = async (url: string, headers: Record<string, string>) => {
    const response = await recorder.send({ url, headers, body: `{"quote":"${UNSENT_POOL_KEY}"}`, signal: new AbortController().signal, timeouts });
    await response.body.text();
  };
  await send(`${ORIGIN}/v1/chat/completions`, SENT);
  await send(`${ORIGIN}/v1beta/models/m:generateContent?key=${QUERY_KEY}`, {});
  await send(`http://user:${URL_PASSWORD}@10.1.2.3:8443/v1/chat`, {});
  await send(`${ORIGIN}/model/m/converse`, { authorization: AWS_SIGNATURE });
  return recorder;
}

const assertNoSecret = (exchanges: UpstreamExchange[]) => {
  const text = JSON.stringify(exchanges);
  for (const secret of ALL) assert.ok(!text.includes(secret), `${secret} kept: ${text}`);
};

describe("a recorded upstream exchange", () => {
  test("keeps no credential for an administrator, and the address with it", async () => {
    const exchanges = (await record()).forViewer(true, [UNSENT_POOL_KEY]);
    assertNoSecret(exchanges);
    assert.equal(exchanges[0]!.request.url, `${ORIGIN}/v1/chat/completions`);
    assert.match(exchanges[1]!.request.url, /key=%5Bredacted%5D/);
    assert.equal(exchanges[0]!.request.headers["x-api-key"], "[redacted]");
  });

  test("keeps the channel's name only for a user: no address, no headers", async () => {
    const exchanges = (await record()).forViewer(false, [UNSENT_POOL_KEY]);
    assertNoSecret(exchanges);
    assert.ok(!JSON.stringify(exchanges).includes("10.1.2.3"), JSON.stringify(exchanges));
    for (const exchange of exchanges) {
      assert.equal(exchange.channel, "internal-pool");
      assert.equal(exchange.request.url, "");
      assert.deepEqual(Object.keys(exchange.request.headers), []);
      assert.deepEqual(Object.keys(exchange.response!.headers), ["content-type"]);
    }
  });

  test("kept before scrubbing, is shown to a user without address or headers", () => {
    const stored: UpstreamExchange[] = [
      {
        request: { method: "POST", url: `${ORIGIN}/v1/chat/completions`, headers: { authorization: "[redacted]", "content-type": "application/json" }, body: "{}" },
        response: { status: 401, headers: { "x-upstream": ORIGIN }, body: `{"error":"sk-live-Abc123Def456 is not valid at ${ORIGIN}"}`, truncated: false },
      },
    ];
    const shown = JSON.stringify(storedForViewer(stored, false));
    assert.ok(!shown.includes("10.1.2.3") && !shown.includes("sk-live-Abc123Def456") && !shown.includes("authorization"), shown);
    assert.ok(JSON.stringify(storedForViewer(stored, true)).includes(`${ORIGIN}/v1/chat/completions`), "an administrator keeps the address");
  });
});
