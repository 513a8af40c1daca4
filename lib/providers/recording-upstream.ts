import { IteratedBody, type UpstreamBody, type UpstreamClient, type UpstreamRequest, type UpstreamResponse } from "./upstream-http";

// Records the exact exchanges with the upstream for the Playground's inspector:
// what the gateway sent and what came back, credentials masked, bodies capped.

const MAX_RECORDED_CHARS = 256 * 1024;
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key", "x-amz-security-token"]);

export interface UpstreamExchange {
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean };
  error?: string;
}

export class RecordingUpstream implements UpstreamClient {
  readonly exchanges: UpstreamExchange[] = [];

  constructor(private readonly inner: UpstreamClient) {}

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = new URL(request.url);
    for (const name of ["key", "api_key"]) if (url.searchParams.has(name)) url.searchParams.set(name, "[redacted]");
    const exchange: UpstreamExchange = {
      request: {
        method: request.method ?? "POST",
        url: url.toString(),
        headers: Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? "[redacted]" : value]),
        ),
        body: request.body === undefined ? "" : cap(request.body.toString()).text,
      },
    };
    this.exchanges.push(exchange);
    let response: UpstreamResponse;
    try {
      response = await this.inner.send(request);
    } catch (error) {
      exchange.error = error instanceof Error ? error.message : String(error);
      throw error;
    }
    const recorded = {
      status: response.status,
      headers: Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : String(value ?? "")])),
      body: "",
      truncated: false,
    };
    exchange.response = recorded;
    const binary = !/json|text|event-stream/.test(recorded.headers["content-type"] ?? "");
    return {
      ...response,
      body: new RecordedBody(response.body, (text) => {
        if (recorded.truncated) return;
        const next = cap(recorded.body + text);
        recorded.body = next.text;
        recorded.truncated = next.truncated;
      }, binary),
    };
  }
}

function cap(text: string): { text: string; truncated: boolean } {
  return text.length > MAX_RECORDED_CHARS ? { text: text.slice(0, MAX_RECORDED_CHARS), truncated: true } : { text, truncated: false };
}

class RecordedBody extends IteratedBody {
  private size = 0;

  constructor(
    private readonly inner: UpstreamBody,
    private readonly record: (text: string) => void,
    private readonly binary: boolean,
  ) {
    super();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.inner) {
        this.size += chunk.byteLength;
        if (!this.binary) this.record(decoder.decode(chunk, { stream: true }));
        yield chunk;
      }
    } finally {
      if (this.binary) this.record(`[${this.size} bytes of binary data]`);
    }
  }

  async dump(): Promise<void> {
    for await (const _ of this) void _;
  }

  destroy(): void {
    this.inner.destroy();
  }
}
