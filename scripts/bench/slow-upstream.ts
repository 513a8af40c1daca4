// An OpenAI-compatible upstream whose streams last: POST .../chat/completions with
// "stream": true is answered by one chat.completion.chunk every INTERVAL_MS (100) for
// STREAM_SECONDS (60), then a finish chunk, a usage chunk and `data: [DONE]`. A request
// without "stream": true gets a whole completion at once. Prints its port.
// One shared interval writes to every open stream, so hundreds of streams cost a few
// wake-ups a second, not a timer each.
import http from "node:http";

const intervalMs = Number(process.env.INTERVAL_MS ?? 100);
const streamSeconds = Number(process.env.STREAM_SECONDS ?? 60);
/** Content chunks per stream; the client sees this many + finish + usage events, then [DONE]. */
const CHUNKS = Math.max(1, Math.round((streamSeconds * 1000) / intervalMs));
const PROMPT_TOKENS = 12;
const created = 1_700_000_000;

interface OpenStream {
  response: http.ServerResponse;
  model: string;
  sent: number;
}

const chunk = (model: string, delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
const usage = (model: string) =>
  `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", created, model, choices: [], usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: CHUNKS, total_tokens: PROMPT_TOKENS + CHUNKS } })}\n\n`;

// The events of one model, built once: every stream of that model writes the same strings.
const eventsByModel = new Map<string, { first: string; content: string; end: string }>();
function eventsFor(model: string) {
  let events = eventsByModel.get(model);
  if (!events) {
    events = {
      first: chunk(model, { role: "assistant", content: "word " }, null),
      content: chunk(model, { content: "word " }, null),
      end: `${chunk(model, {}, "stop")}${usage(model)}data: [DONE]\n\n`,
    };
    eventsByModel.set(model, events);
  }
  return events;
}

const open = new Set<OpenStream>();
let ticker: NodeJS.Timeout | undefined;

function tick(): void {
  for (const stream of open) {
    const events = eventsFor(stream.model);
    stream.response.write(stream.sent === 0 ? events.first : events.content);
    stream.sent += 1;
    if (stream.sent === CHUNKS) {
      open.delete(stream);
      stream.response.end(events.end);
    }
  }
  if (open.size === 0) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

function startStream(response: http.ServerResponse, model: string): void {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // Headers now, as real upstreams send them before the first token.
  response.flushHeaders();
  const stream: OpenStream = { response, model, sent: 0 };
  open.add(stream);
  response.once("close", () => open.delete(stream));
  ticker ??= setInterval(tick, intervalMs);
}

/** The two fields this fake reads; anything unreadable is a non-streaming request for "slow-model". */
function readBody(body: Buffer): { model: string; stream: boolean } {
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { model?: unknown; stream?: unknown };
    return { model: typeof parsed.model === "string" ? parsed.model : "slow-model", stream: parsed.stream === true };
  } catch {
    return { model: "slow-model", stream: false };
  }
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (data: Buffer) => chunks.push(data));
  request.on("end", () => {
    if (request.method !== "POST" || !(request.url ?? "").split("?")[0]!.endsWith("/chat/completions")) {
      response.writeHead(404, { "content-type": "application/json" });
      response.end('{"error":{"message":"not found"}}');
      return;
    }
    const { model, stream } = readBody(Buffer.concat(chunks));
    if (stream) {
      startStream(response, model);
      return;
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        id: "chatcmpl-slow",
        object: "chat.completion",
        created,
        model,
        choices: [{ index: 0, message: { role: "assistant", content: "word " }, logprobs: null, finish_reason: "stop" }],
        usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: 1, total_tokens: PROMPT_TOKENS + 1 },
      }),
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
