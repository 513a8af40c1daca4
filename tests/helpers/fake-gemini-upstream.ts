import fs from "node:fs";
import type http from "node:http";
import path from "node:path";
import { fakeVector } from "./fake-openai-operations";
import { lastUserText, startFakeServer, words, type FakeServer, type ReceivedRequest } from "./fake-upstream-server";
import { asksForTool, lastPromptText, requestedArguments, requestedTool, SEARCH_ANSWER, SEARCH_PAGE, SEARCH_QUERY, wantsSearch } from "./scripted-turns";

// A loopback Gemini API (v1beta). It rejects what the real API rejects: roles other
// than user/model, JSON-Schema keywords outside Gemini's subset, non-object function
// responses, more than five stop sequences, empty OBJECT parameters.

export const GEMINI_KEY = "gemini-upstream-key-0123456789";
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures", "gemini");

function fail(response: http.ServerResponse, code: number, status: string, message: string) {
  response.writeHead(code, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { code, message, status } }));
}

// The fields of Gemini's Schema object: anything else is refused, as the real API does.
const SCHEMA_FIELDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

function schemaViolation(schema: any, where: string): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  for (const key of Object.keys(schema)) {
    if (!SCHEMA_FIELDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at '${where}': Cannot find field.`;
  }
  if (schema.enum && String(schema.type).toUpperCase() !== "STRING") return `${where}.enum: only allowed for STRING type`;
  for (const [index, branch] of (schema.anyOf ?? []).entries()) {
    const violation = schemaViolation(branch, `${where}.any_of[${index}]`);
    if (violation) return violation;
  }
  if (String(schema.type).toUpperCase() === "OBJECT" && schema.properties && Object.keys(schema.properties).length === 0) {
    return `${where}.properties: should be non-empty for OBJECT type`;
  }
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const violation = schemaViolation(child, `${where}.properties[${name}]`);
    if (violation) return violation;
  }
  return schemaViolation(schema.items, `${where}.items`);
}

const TOOL_KINDS = new Set(["functionDeclarations", "googleSearch", "googleSearchRetrieval", "codeExecution", "urlContext", "fileSearch", "googleMaps", "computerUse"]);

/**
 * The reason Gemini would refuse a request, or undefined. Besides shapes: a model turn's
 * function calls are answered by as many function responses in the next turn, and
 * Gemini 3 models (`gemini-3*` here) need the first call of each step to carry its
 * thought signature back.
 */
export function geminiViolation(body: any, model = ""): string | undefined {
  if (!Array.isArray(body?.contents) || body.contents.length === 0) return "contents is not specified";
  let unanswered = 0;
  for (const [index, content] of body.contents.entries()) {
    // Optional (single-turn calls leave it out), but only these two when set.
    if (content.role !== undefined && content.role !== "user" && content.role !== "model") return `contents[${index}].role must be user or model`;
    if (!Array.isArray(content.parts) || content.parts.length === 0) return `contents[${index}].parts must not be empty`;
    for (const part of content.parts) {
      if (part.functionResponse && (typeof part.functionResponse.response !== "object" || Array.isArray(part.functionResponse.response))) {
        return "functionResponse.response must be an object";
      }
      if (part.text === "") return "text parts must not be empty";
    }
    const calls = content.parts.filter((part: any) => part.functionCall);
    const responses = content.parts.filter((part: any) => part.functionResponse).length;
    if (unanswered > 0 && responses !== unanswered) {
      return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
    }
    unanswered = content.role === "model" ? calls.length : 0;
    if (model.startsWith("gemini-3") && calls.length > 0 && !calls[0].thoughtSignature) {
      return `Function call is missing a thought_signature in functionCall parts. Position ${index}.`;
    }
  }
  if ((body.generationConfig?.stopSequences?.length ?? 0) > 5) return "stopSequences: at most 5";
  for (const [index, tool] of (body.tools ?? []).entries()) {
    for (const key of Object.keys(tool)) {
      if (!TOOL_KINDS.has(key)) return `Invalid JSON payload received. Unknown name "${key}" at 'tools[${index}]': Cannot find field.`;
    }
    if (tool.googleSearch !== undefined && (typeof tool.googleSearch !== "object" || Object.keys(tool.googleSearch).some((key) => key !== "timeRangeFilter"))) {
      return `Invalid JSON payload received at 'tools[${index}].google_search'.`;
    }
    for (const declaration of tool.functionDeclarations ?? []) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(declaration.name ?? "")) return `* GenerateContentRequest.tools[${index}].function_declarations.name: Invalid function name.`;
      const violation = schemaViolation(declaration.parameters, `tools.function_declarations[${declaration.name}].parameters`);
      if (violation) return violation;
    }
  }
  // Built-in tools beside function declarations: Gemini 3 only, and only with the server's own tool calls circulated.
  const tools = body.tools ?? [];
  if (tools.some((tool: any) => tool.googleSearch) && tools.some((tool: any) => tool.functionDeclarations?.length)) {
    if (!model.startsWith("gemini-3") || body.toolConfig?.includeServerSideToolInvocations !== true) return "Tool use with function calling is unsupported by the model.";
  }
  return undefined;
}

async function handle(request: ReceivedRequest, response: http.ServerResponse, server: FakeServer) {
  if (request.headers["x-goog-api-key"] !== GEMINI_KEY) return fail(response, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
  const match = /^\/v1beta\/models\/([^:]+):(\w+)(\?alt=sse)?$/.exec(request.path);
  if (!match) return fail(response, 404, "NOT_FOUND", `unknown path ${request.path}`);
  const [, model, method, sse] = match;
  if (method === "batchEmbedContents") {
    const requests = request.body?.requests;
    if (!Array.isArray(requests) || requests.length === 0) return fail(response, 400, "INVALID_ARGUMENT", "requests must not be empty");
    for (const [index, entry] of requests.entries()) {
      if (entry.model !== `models/${model}`) return fail(response, 400, "INVALID_ARGUMENT", `requests[${index}].model must be models/${model}`);
      if (!entry.content?.parts?.[0]?.text) return fail(response, 400, "INVALID_ARGUMENT", `requests[${index}].content is empty`);
    }
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ embeddings: requests.map((entry: any) => ({ values: fakeVector(entry.content.parts[0].text, entry.outputDimensionality ?? 4) })) }));
    return;
  }
  if (method === "countTokens") {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ totalTokens: 777 }));
    return;
  }
  const violation = geminiViolation(request.body, model);
  if (violation) {
    server.rejected.push(violation);
    return fail(response, 400, "INVALID_ARGUMENT", violation);
  }
  if (model === "gemini-overloaded") return fail(response, 503, "UNAVAILABLE", "The model is overloaded. Please try again later.");
  if (model === "gemini-server-error")
    return fail(response, 500, "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting");
  // What Gemini answers for a prompt over the model's context window.
  if (model === "gemini-small-context") return fail(response, 400, "INVALID_ARGUMENT", "The input token count (1054016) exceeds the maximum number of tokens allowed (1048576).");
  const stream = method === "streamGenerateContent";
  if (stream && !sse) return fail(response, 400, "INVALID_ARGUMENT", "the fake only streams with alt=sse");
  if (model === "gemini-midstream-error" && stream) {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.write(`data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: "Partial" }] }, index: 0 }], modelVersion: model })}\r\n\r\n`);
    response.end(`data: ${JSON.stringify({ error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } })}\r\n\r\n`);
    return;
  }
  if (model === "gemini-tools") {
    if (stream) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(fs.readFileSync(path.join(FIXTURES, "stream-parallel-calls.sse")));
    } else {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_weather", args: { city: "Rome" } } }],
              },
              finishReason: "STOP",
              index: 0,
            },
          ],
          usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 12, totalTokenCount: 42 },
          modelVersion: model,
        }),
      );
    }
    return;
  }
  if (scriptedTurn(request.body, model, stream, response)) return;
  const reply = words(`Echo: ${lastUserText(request.body.contents)}`);
  const usage = (done: number) => ({ promptTokenCount: 17, candidatesTokenCount: done, totalTokenCount: 17 + done });
  if (!stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        candidates: [{ content: { role: "model", parts: [{ text: reply.join("") }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: usage(reply.length),
        modelVersion: model,
        responseId: "resp-fake",
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream" });
  reply.forEach((word, index) => {
    const last = index === reply.length - 1;
    const candidate: Record<string, unknown> = { content: { role: "model", parts: [{ text: word }] }, index: 0 };
    if (last) candidate.finishReason = "STOP";
    // Google frames events with CRLF; usage is cumulative on every chunk.
    response.write(`data: ${JSON.stringify({ candidates: [candidate], usageMetadata: usage(index + 1), modelVersion: model, responseId: "resp-fake" })}\r\n\r\n`);
  });
  response.end();
}

/** The scripted turns (scripted-turns.ts): a tool call, a Google Search, the answer to a tool's result. */
function scriptedTurn(body: any, model: string, stream: boolean, response: http.ServerResponse): boolean {
  const prompt = lastPromptText(body.contents);
  const last = body.contents.at(-1);
  const result = asksForTool(prompt) ? last.parts.find((part: any) => part.functionResponse) : undefined;
  const declared = (body.tools ?? []).flatMap((tool: any) => (tool.functionDeclarations ?? []).map((declaration: any) => declaration.name));
  const tool = result ? undefined : requestedTool(prompt, declared);
  const search = !result && !tool && wantsSearch(prompt) && (body.tools ?? []).some((entry: any) => entry.googleSearch);
  const candidate: Record<string, unknown> = { finishReason: "STOP", index: 0 };
  if (result) candidate.content = { role: "model", parts: [{ text: `Tool said: ${JSON.stringify(result.functionResponse.response)}` }] };
  else if (tool) candidate.content = { role: "model", parts: [{ functionCall: { name: tool, args: requestedArguments(prompt) } }] };
  else if (search) {
    const text = `Let me search. ${SEARCH_ANSWER}`;
    candidate.content = { role: "model", parts: [{ text }] };
    candidate.groundingMetadata = {
      webSearchQueries: [SEARCH_QUERY],
      searchEntryPoint: { renderedContent: "<div></div>" },
      groundingChunks: [{ web: { uri: SEARCH_PAGE.url, title: SEARCH_PAGE.title } }],
      groundingSupports: [{ segment: { startIndex: 15, endIndex: text.length, text: SEARCH_ANSWER }, groundingChunkIndices: [0] }],
    };
  } else return false;
  const chunk = {
    candidates: [candidate],
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 8, totalTokenCount: 28 },
    modelVersion: model,
    responseId: "resp-fake-scripted",
  };
  if (!stream) {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(chunk));
    return true;
  }
  response.writeHead(200, { "content-type": "text/event-stream" });
  response.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
  return true;
}

export async function startFakeGeminiUpstream() {
  const server = await startFakeServer(handle);
  return { ...server, baseUrl: `${server.origin}/v1beta` };
}
