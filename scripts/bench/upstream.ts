// The benchmark's upstream: an OpenAI-compatible server that answers at once, a whole
// completion or a stream of 20 content chunks plus a usage chunk, so what is measured is
// the proxy in front of it; on a path ending in /messages it answers as Anthropic does
// (a stream of 20 text deltas between message_start and message_stop), on one ending in
// /responses as OpenAI's Responses API does. Prints its port.
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

const message = { id: "msg_bench", type: "message", role: "assistant", model: "bench-model", content: [], stop_reason: null, stop_sequence: null };
const anthropicEvent = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const anthropicEvents = [
  anthropicEvent("message_start", { message: { ...message, usage: { input_tokens: 12, output_tokens: 1 } } }),
  anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  ...Array.from({ length: CHUNKS }, (_, index) => anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: `word${index} ` } })),
  anthropicEvent("content_block_stop", { index: 0 }),
  anthropicEvent("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: CHUNKS } }),
  anthropicEvent("message_stop", {}),
];

const responseObject = {
  id: "resp_bench",
  object: "response",
  created_at: created,
  status: "completed",
  model: "bench-model",
  output: [
    { id: "msg_bench", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: "Hello from the benchmark upstream.", annotations: [] }] },
  ],
  usage: { input_tokens: 12, output_tokens: CHUNKS, total_tokens: 12 + CHUNKS },
};
const responsesEvent = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const responsesEvents = [
  responsesEvent("response.created", { response: { ...responseObject, status: "in_progress", output: [], usage: null } }),
  responsesEvent("response.output_item.added", { output_index: 0, item: { id: "msg_bench", type: "message", status: "in_progress", role: "assistant", content: [] } }),
  ...Array.from({ length: CHUNKS }, (_, index) =>
    responsesEvent("response.output_text.delta", { item_id: "msg_bench", output_index: 0, content_index: 0, delta: `word${index} ` }),
  ),
  responsesEvent("response.completed", { response: responseObject }),
];

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const stream = Buffer.concat(chunks).includes('"stream":true');
    if (request.url?.endsWith("/responses")) {
      response.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
      if (stream) for (const text of responsesEvents) response.write(text);
      response.end(stream ? undefined : JSON.stringify(responseObject));
      return;
    }
    if (request.url?.endsWith("/messages") && stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (const text of anthropicEvents) response.write(text);
      response.end();
      return;
    }
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
