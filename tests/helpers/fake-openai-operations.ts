import type http from "node:http";
import { Busboy } from "@fastify/busboy";
import { asksForTool, requestedArguments, requestedTool, SEARCH_ANSWER, SEARCH_PAGE, SEARCH_QUERY, wantsSearch } from "./scripted-turns";

/** A multipart body as the fake received it: text fields and files, each in order. */
export interface ReceivedForm {
  fields: [string, string][];
  files: { name: string; filename: string; contentType: string; bytes: Buffer }[];
  /** Part names in the order they arrived. */
  order: string[];
}

export function parseMultipart(contentType: string, body: Buffer): Promise<ReceivedForm> {
  return new Promise((resolve, reject) => {
    const form: ReceivedForm = { fields: [], files: [], order: [] };
    const parser = Busboy({ headers: { "content-type": contentType } });
    parser.on("field", (name, value) => {
      form.fields.push([name, value]);
      form.order.push(name);
    });
    parser.on("file", (name, stream, filename, _encoding, mimeType) => {
      const chunks: Buffer[] = [];
      const file = { name, filename, contentType: mimeType, bytes: Buffer.alloc(0) };
      form.files.push(file);
      form.order.push(name);
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => (file.bytes = Buffer.concat(chunks)));
    });
    parser.on("finish", () => resolve(form));
    parser.on("error", reject);
    parser.end(body);
  });
}

// The OpenAI endpoints beyond chat, as the loopback OpenAI fake serves them. Each rejects
// what the real API rejects (a missing model or input), so a gateway that forwards a
// broken body fails the test.

export const FAKE_AUDIO = Buffer.from("ID3\u0004fake-mp3-bytes-".repeat(64));

function json(response: http.ServerResponse, status: number, value: unknown) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(value));
}

function invalid(response: http.ServerResponse, param: string, message: string) {
  json(response, 400, { error: { message, type: "invalid_request_error", param, code: null } });
}

/** Deterministic vectors: what each text embeds to (its length, then fixed values). */
export function fakeVector(text: string, dimensions = 4): number[] {
  return Array.from({ length: dimensions }, (_, index) => (index === 0 ? text.length : 0.25 * index));
}

/** Answers a non-chat OpenAI path; returns false for paths it does not know. */
// The tool types OpenAI's Responses API takes, and what some of them require.
const RESPONSES_TOOL_TYPES = new Set([
  "function",
  "custom",
  "namespace",
  "web_search",
  "web_search_preview",
  "web_search_2025_08_26",
  "web_search_preview_2025_03_11",
  "file_search",
  "code_interpreter",
  "image_generation",
  "computer_use_preview",
  "mcp",
  "local_shell",
  "shell",
  "apply_patch",
  "tool_search",
]);

function responsesToolViolation(tools: any[], where = "tools"): string | undefined {
  for (const [index, tool] of tools.entries()) {
    const at = `${where}[${index}]`;
    if (!RESPONSES_TOOL_TYPES.has(tool?.type)) return `Invalid value: '${tool?.type}' at ${at}.type.`;
    if ((tool.type === "function" || tool.type === "custom" || tool.type === "namespace") && !tool.name) return `Missing required parameter: '${at}.name'.`;
    if (tool.type === "file_search" && !Array.isArray(tool.vector_store_ids)) return `Missing required parameter: '${at}.vector_store_ids'.`;
    if (tool.type === "mcp" && !tool.server_label) return `Missing required parameter: '${at}.server_label'.`;
    if (tool.type === "namespace") {
      if (!Array.isArray(tool.tools) || tool.tools.length === 0) return `Missing required parameter: '${at}.tools'.`;
      if (tool.tools.some((inner: any) => inner.type !== "function" && inner.type !== "custom")) return `${at}.tools: a namespace holds only function and custom tools.`;
      const inner = responsesToolViolation(tool.tools, `${at}.tools`);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** OpenAI's own answers to the scripted turns (scripted-turns.ts): namespaced calls, hosted web search. */
function scriptedResponsesOutput(body: any, prompt: string, toolOutput: any): any[] | undefined {
  if (toolOutput && asksForTool(prompt)) {
    return [
      {
        type: "message",
        id: "msg_native2",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: `Tool said: ${toolOutput.output}`, annotations: [], logprobs: [] }],
      },
    ];
  }
  const tools: any[] = body.tools ?? [];
  const declared = tools.flatMap((tool) =>
    tool.type === "namespace"
      ? tool.tools.map((inner: any) => ({ namespace: tool.name, name: inner.name, custom: inner.type === "custom" }))
      : tool.name
        ? [{ name: tool.name, custom: tool.type === "custom" }]
        : [],
  );
  const wanted = toolOutput
    ? undefined
    : requestedTool(
        prompt,
        declared.map((tool) => tool.name),
      );
  const found = declared.find((entry) => entry.name === wanted);
  if (found) {
    const { custom, ...tool } = found;
    return [
      custom
        ? { type: "custom_tool_call", id: "ctc_native2", call_id: "call_native2", ...tool, input: "" }
        : { type: "function_call", id: "fc_native2", call_id: "call_native2", ...tool, arguments: JSON.stringify(requestedArguments(prompt)), status: "completed" },
    ];
  }
  if (!toolOutput && wantsSearch(prompt) && tools.some((entry) => String(entry.type).startsWith("web_search"))) {
    const text = `Let me search. ${SEARCH_ANSWER}`;
    const annotation = { type: "url_citation", url: SEARCH_PAGE.url, title: SEARCH_PAGE.title, start_index: text.indexOf(SEARCH_ANSWER), end_index: text.length };
    return [
      { type: "web_search_call", id: "ws_native1", status: "completed", action: { type: "search", query: SEARCH_QUERY, sources: [{ type: "url", url: SEARCH_PAGE.url }] } },
      { type: "message", id: "msg_native3", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [annotation], logprobs: [] }] },
    ];
  }
  return undefined;
}

/** The opaque `encrypted_content` the fake's own compaction answers with (OpenAI's are Fernet tokens). */
export const OPENAI_COMPACTION_BLOB = "gAAAAABfake-openai-compaction-0123456789";

/** What the fake's /responses/input_tokens counts for any input. */
export const OPENAI_INPUT_TOKENS = 777;

export function serveOpenAIOperation(path: string, body: any, response: http.ServerResponse): boolean {
  switch (path) {
    case "/v1/completions": {
      if (typeof body.prompt !== "string" && !Array.isArray(body.prompt)) return (invalid(response, "prompt", "you must provide a prompt"), true);
      const text = ` completed: ${String(body.prompt)}`;
      const usage = { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 };
      if (!body.stream) {
        json(response, 200, {
          id: "cmpl-fake",
          object: "text_completion",
          created: 1_700_000_002,
          model: body.model,
          choices: [{ text, index: 0, logprobs: null, finish_reason: "stop" }],
          usage,
        });
        return true;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (value: string, finish: string | null) => ({
        id: "cmpl-fake",
        object: "text_completion",
        created: 1_700_000_002,
        model: body.model,
        choices: [{ text: value, index: 0, logprobs: null, finish_reason: finish }],
      });
      for (const word of text.split(/(?= )/)) response.write(`data: ${JSON.stringify(chunk(word, null))}\n\n`);
      response.write(`data: ${JSON.stringify(chunk("", "stop"))}\n\n`);
      if (body.stream_options?.include_usage)
        response.write(`data: ${JSON.stringify({ id: "cmpl-fake", object: "text_completion", created: 1_700_000_002, model: body.model, choices: [], usage })}\n\n`);
      response.end("data: [DONE]\n\n");
      return true;
    }
    case "/v1/embeddings": {
      if (body.input === undefined) return (invalid(response, "input", "'input' is a required property"), true);
      const inputs: unknown[] = typeof body.input === "string" || typeof body.input[0] === "number" ? [body.input] : body.input;
      const vectors = inputs.map((input) => fakeVector(typeof input === "string" ? input : `tokens:${(input as number[]).length}`, body.dimensions ?? 4));
      json(response, 200, {
        object: "list",
        data: vectors.map((vector, index) => ({
          object: "embedding",
          index,
          embedding: body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
        })),
        model: body.model,
        usage: { prompt_tokens: 6, total_tokens: 6 },
      });
      return true;
    }
    case "/v1/images/generations": {
      if (!body.prompt) return (invalid(response, "prompt", "'prompt' is a required property"), true);
      const image =
        body.response_format === "b64_json"
          ? { b64_json: Buffer.from(`png:${body.prompt}`).toString("base64") }
          : { url: `https://images.example/${encodeURIComponent(body.prompt)}.png` };
      json(response, 200, { created: 1_700_000_003, data: Array.from({ length: body.n ?? 1 }, () => image), usage: { input_tokens: 9, output_tokens: 1056, total_tokens: 1065 } });
      return true;
    }
    case "/v1/audio/speech": {
      if (!body.input || !body.voice) return (invalid(response, body.input ? "voice" : "input", "input and voice are required"), true);
      response.writeHead(200, { "content-type": body.response_format === "wav" ? "audio/wav" : "audio/mpeg" });
      response.write(FAKE_AUDIO.subarray(0, 500));
      response.end(FAKE_AUDIO.subarray(500));
      return true;
    }
    case "/v1/images/edits": {
      const form = body as ReceivedForm;
      const field = (name: string) => form.fields.find(([key]) => key === name)?.[1];
      const images = form.files.filter((file) => file.name === "image" || file.name === "image[]");
      if (!field("model")) return (invalid(response, "model", "you must provide a model parameter"), true);
      if (images.length === 0 || !field("prompt")) return (invalid(response, "image", "image and prompt are required"), true);
      json(response, 200, {
        created: 1_700_000_004,
        data: [{ b64_json: Buffer.from(`edited:${images.map((image) => `${image.filename}(${image.bytes.length})`).join(",")}:${field("prompt")}`).toString("base64") }],
        usage: { input_tokens: 20, output_tokens: 100, total_tokens: 120 },
      });
      return true;
    }
    case "/v1/audio/transcriptions": {
      const form = body as ReceivedForm;
      const field = (name: string) => form.fields.find(([key]) => key === name)?.[1];
      const file = form.files.find((entry) => entry.name === "file");
      if (!field("model")) return (invalid(response, "model", "you must provide a model parameter"), true);
      if (!file) return (invalid(response, "file", "file is required"), true);
      const text = `heard ${file.bytes.length} bytes of ${file.filename}`;
      switch (field("response_format") ?? "json") {
        case "text":
          response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
          response.end(`${text}\n`);
          return true;
        case "srt":
          response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
          response.end(`1\n00:00:00,000 --> 00:00:01,000\n${text}\n\n`);
          return true;
        case "vtt":
          response.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
          response.end(`WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n${text}\n\n`);
          return true;
        case "verbose_json":
          json(response, 200, {
            task: "transcribe",
            language: "english",
            duration: 1,
            text,
            segments: [{ id: 0, start: 0, end: 1, text }],
            usage: { type: "duration", seconds: 1 },
          });
          return true;
        default:
          json(response, 200, { text, usage: { type: "tokens", input_tokens: 14, output_tokens: 6, total_tokens: 20 } });
          return true;
      }
    }
    case "/v1/responses/input_tokens": {
      if (String(body.model).startsWith("chat-only")) {
        json(response, 404, { error: { message: "Invalid URL (POST /v1/responses/input_tokens)", type: "invalid_request_error", param: null, code: null } });
        return true;
      }
      json(response, 200, { object: "response.input_tokens", input_tokens: OPENAI_INPUT_TOKENS });
      return true;
    }
    case "/v1/responses/compact": {
      // OpenAI's own compaction: the user messages, then one item only OpenAI can read.
      if (String(body.model).startsWith("chat-only")) {
        json(response, 404, { error: { message: "Invalid URL (POST /v1/responses/compact)", type: "invalid_request_error", param: null, code: null } });
        return true;
      }
      const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? []);
      const users = items
        .filter((item: any) => item.role === "user")
        .map((item: any, index: number) => ({ type: "message", id: `msg_kept${index}`, status: "completed", role: "user", content: item.content }));
      json(response, 200, {
        id: "resp_compact_native1",
        object: "response.compaction",
        created_at: 1_700_000_006,
        output: [...users, { type: "compaction", id: "cmp_native1", encrypted_content: OPENAI_COMPACTION_BLOB }],
        usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 150 },
      });
      return true;
    }
    case "/v1/responses": {
      // A chat-only OpenAI-compatible server has no such path.
      if (String(body.model).startsWith("chat-only")) {
        json(response, 404, { error: { message: "Invalid URL (POST /v1/responses)", type: "invalid_request_error", param: null, code: null } });
        return true;
      }
      if (body.input === undefined) return (invalid(response, "input", "Missing required parameter: 'input'."), true);
      const toolProblem = responsesToolViolation(body.tools ?? []);
      if (toolProblem) return (invalid(response, "tools", toolProblem), true);
      const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
      const lastUser = [...items].reverse().find((item: any) => item.role === "user");
      const userText = typeof lastUser?.content === "string" ? lastUser.content : (lastUser?.content ?? []).map((part: any) => part.text ?? "").join("");
      const toolOutput = items.find((item: any) => item.type === "function_call_output");
      // resp-* and fake-tools call their first tool whenever they have tools (others only when asked).
      const callTool = /^(resp-|fake-tools)/.test(String(body.model)) && body.tools?.length && !toolOutput;
      const triggered = items.at(-1)?.type === "compaction_trigger";
      const output: any[] = triggered
        ? [{ type: "compaction", id: "cmp_native2", encrypted_content: OPENAI_COMPACTION_BLOB }]
        : (scriptedResponsesOutput(body, userText, toolOutput) ??
          (callTool
            ? [{ type: "function_call", id: "fc_native1", call_id: "call_native1", name: body.tools[0].name, arguments: '{"city":"Paris"}', status: "completed" }]
            : [
                {
                  type: "message",
                  id: "msg_native1",
                  status: "completed",
                  role: "assistant",
                  content: [{ type: "output_text", text: toolOutput ? `Tool said: ${toolOutput.output}` : `Native: ${userText}`, annotations: [], logprobs: [] }],
                },
              ]));
      const usage = { input_tokens: 9, input_tokens_details: { cached_tokens: 2 }, output_tokens: 4, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 13 };
      const base = {
        id: "resp_native1",
        object: "response",
        created_at: 1_700_000_005,
        model: body.model,
        instructions: body.instructions ?? null,
        tools: body.tools ?? [],
        parallel_tool_calls: true,
        tool_choice: "auto",
        text: { format: { type: "text" } },
        error: null,
        incomplete_details: null,
        metadata: {},
        temperature: 1,
        top_p: 1,
        truncation: "disabled",
        store: body.store ?? true,
        previous_response_id: body.previous_response_id ?? null,
        reasoning: { effort: null, summary: null },
        max_output_tokens: null,
        user: null,
      };
      if (!body.stream) {
        json(response, 200, { ...base, status: "completed", output, usage });
        return true;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      let sequence = 0;
      const send = (type: string, data: Record<string, unknown>) => response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
      send("response.created", { response: { ...base, status: "in_progress", output: [], usage: null } });
      output.forEach((item, index) => {
        const ids = { item_id: item.id, output_index: index };
        if (item.type === "message") {
          const text = item.content[0].text as string;
          send("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress", content: [] } });
          send("response.content_part.added", { ...ids, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
          for (const word of text.split(/(?= )/)) send("response.output_text.delta", { ...ids, content_index: 0, delta: word, logprobs: [] });
          item.content[0].annotations.forEach((annotation: unknown, annotationIndex: number) => {
            send("response.output_text.annotation.added", { ...ids, content_index: 0, annotation_index: annotationIndex, annotation });
          });
          send("response.output_text.done", { ...ids, content_index: 0, text, logprobs: [] });
          send("response.content_part.done", { ...ids, content_index: 0, part: item.content[0] });
        } else if (item.type === "compaction") {
          send("response.output_item.added", { output_index: index, item });
        } else if (item.type === "web_search_call") {
          send("response.output_item.added", { output_index: index, item: { ...item, status: "in_progress" } });
          for (const step of ["in_progress", "searching", "completed"]) send(`response.web_search_call.${step}`, ids);
        } else {
          send("response.output_item.added", { output_index: index, item: { ...item, arguments: "", status: "in_progress" } });
          send("response.function_call_arguments.delta", { ...ids, delta: item.arguments });
          send("response.function_call_arguments.done", { ...ids, arguments: item.arguments });
        }
        send("response.output_item.done", { output_index: index, item });
      });
      send("response.completed", { response: { ...base, status: "completed", output, usage } });
      response.end();
      return true;
    }
    case "/v1/rerank": {
      if (typeof body.query !== "string" || !Array.isArray(body.documents)) return (invalid(response, "query", "query and documents are required"), true);
      const words = new Set(body.query.toLowerCase().split(/\W+/).filter(Boolean));
      const scored = body.documents.map((document: string | { text: string }, index: number) => {
        const text = typeof document === "string" ? document : document.text;
        const hits = text
          .toLowerCase()
          .split(/\W+/)
          .filter((word) => words.has(word)).length;
        return { index, relevance_score: hits / (hits + 1), document: { text } };
      });
      scored.sort((a: { relevance_score: number }, b: { relevance_score: number }) => b.relevance_score - a.relevance_score);
      json(response, 200, { model: body.model, results: scored.slice(0, body.top_n ?? scored.length), usage: { total_tokens: 12 } });
      return true;
    }
    default:
      return false;
  }
}
