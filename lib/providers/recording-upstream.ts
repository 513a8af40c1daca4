import { scrubSecrets } from "./scrub-secrets";
import { IteratedBody, type UpstreamBody, type UpstreamClient, type UpstreamRequest, type UpstreamResponse } from "./upstream-http";

// Records the exact exchanges with the upstream for the Playground's inspector:
// what the gateway sent and what came back, credentials masked, bodies capped. What is
// kept goes through the same scrubbing as answers and logs (`forViewer`): every credential
// the gateway sent is cut from every text (an upstream may quote the key in its error), and
// a viewer who is not an administrator sees the channel's name, never its address or headers.

const MAX_RECORDED_CHARS = 256 * 1024;
const SECRET_HEADERS = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key", "x-amz-security-token"]);

export interface UpstreamExchange {
  /** The channel the exchange went to, by name. */
  channel?: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean };
  error?: string;
}

export class RecordingUpstream implements UpstreamClient {
  readonly exchanges: UpstreamExchange[] = [];
  /** Every credential sent, and every upstream address: what `forViewer` cuts. */
  private readonly secrets = new Set<string>();
  private readonly addresses = new Set<string>();

  constructor(
    private readonly inner: UpstreamClient,
    /** The name of the channel being attempted now. */
    private readonly channelName: () => string | undefined = () => undefined,
  ) {}

  /** The exchanges as a viewer may keep them (see scrubExchanges), cut of `keys` too (a channel's whole pool). */
  forViewer(admin: boolean, keys: readonly (string | undefined)[] = []): UpstreamExchange[] {
    const secrets = [...this.secrets, ...keys.filter((key): key is string => key !== undefined)];
    return scrubExchanges(this.exchanges, secrets, this.addresses, admin);
  }

  async send(request: UpstreamRequest): Promise<UpstreamResponse> {
    const url = new URL(request.url);
    for (const name of ["key", "api_key"]) {
      const value = url.searchParams.get(name);
      if (value === null) continue;
      this.secrets.add(value);
      url.searchParams.set(name, "[redacted]");
    }
    // A base URL may carry credentials of its own (https://user:password@host).
    if (url.password) this.secrets.add(url.password);
    url.username = "";
    url.password = "";
    for (const [name, value] of Object.entries(request.headers)) {
      if (!SECRET_HEADERS.has(name.toLowerCase()) || typeof value !== "string") continue;
      this.secrets.add(value);
      // The credential inside "Bearer <token>", and the key id in AWS's "Credential=<key id>/...".
      const inner = /^bearer\s+(\S+)/i.exec(value)?.[1] ?? /Credential=([^/,\s]+)/.exec(value)?.[1];
      if (inner) this.secrets.add(inner);
    }
    this.addresses.add(url.origin);
    this.addresses.add(url.host);
    const exchange: UpstreamExchange = {
      channel: this.channelName(),
      request: {
        method: request.method ?? "POST",
        url: url.toString(),
        headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, SECRET_HEADERS.has(name.toLowerCase()) ? "[redacted]" : value])),
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
      body: new RecordedBody(
        response.body,
        (text) => {
          if (recorded.truncated) return;
          const next = cap(recorded.body + text);
          recorded.body = next.text;
          recorded.truncated = next.truncated;
        },
        binary,
      ),
    };
  }
}

/** What to keep and show: credentials cut for everyone; for a non-administrator, the channel by name only. */
export function scrubExchanges(exchanges: readonly UpstreamExchange[], secrets: Iterable<string>, addresses: Iterable<string>, admin: boolean): UpstreamExchange[] {
  const cut = [...secrets].sort((a, b) => b.length - a.length);
  const hidden = admin ? [] : [...addresses].sort((a, b) => b.length - a.length);
  const clean = (text: string) => {
    let result = scrubSecrets(text, cut);
    for (const address of hidden) result = result.split(address).join("[upstream]");
    return result;
  };
  const cleanHeaders = (headers: Record<string, string>) =>
    admin ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, clean(value)])) : pick(headers, "content-type");
  return exchanges.map((exchange) => ({
    channel: exchange.channel,
    request: {
      method: exchange.request.method,
      url: admin ? clean(exchange.request.url) : "",
      headers: cleanHeaders(exchange.request.headers),
      body: clean(exchange.request.body),
    },
    ...(exchange.response
      ? {
          response: {
            status: exchange.response.status,
            headers: cleanHeaders(exchange.response.headers),
            body: clean(exchange.response.body),
            truncated: exchange.response.truncated,
          },
        }
      : {}),
    ...(exchange.error !== undefined ? { error: clean(exchange.error) } : {}),
  }));
}

/** A stored capture as its viewer may see it now: one kept before this scrubbing, or by a user no longer an administrator. */
export function storedForViewer(exchanges: readonly UpstreamExchange[], admin: boolean): UpstreamExchange[] {
  const addresses = exchanges.flatMap((exchange) => {
    if (!URL.canParse(exchange.request.url)) return [];
    const url = new URL(exchange.request.url);
    return [url.origin, url.host];
  });
  return scrubExchanges(exchanges, [], addresses, admin);
}

function pick(headers: Record<string, string>, name: string): Record<string, string> {
  return headers[name] === undefined ? {} : { [name]: headers[name]! };
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
