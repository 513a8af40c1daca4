// The benchmark's upstream: an OpenAI-compatible server that answers at once, a whole
// completion or a stream of 20 content chunks plus a usage chunk, so what is measured is
// the proxy in front of it. Prints its port.
import http from "node:http";

const CHUNKS = 20;
const created = 1_700_000_000;
const completion = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion",
  created,
  model: "bench-model",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello from the benchmark upstream." }, logprobs: null, finish_reason: "stop" }],
  usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
});
const event = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created, model: "bench-model", choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
const streamEvents = [
  event({ role: "assistant", content: "" }, null),
  ...Array.from({ length: CHUNKS - 1 }, (_, index) => event({ content: `word${index} ` }, null)),
  event({}, "stop"),
  `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created, model: "bench-model", choices: [], usage: { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: 12 + CHUNKS } })}\n\n`,
  "data: [DONE]\n\n",
];

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const stream = Buffer.concat(chunks).includes('"stream":true');
    if (!stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(completion);
      return;
    }
    // As real upstreams do: headers first, then each event as its own write.
    response.writeHead(200, { "content-type": "text/event-stream" });
    for (const text of streamEvents) response.write(text);
    response.end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
