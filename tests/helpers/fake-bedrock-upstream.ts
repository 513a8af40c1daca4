import { createHash, createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import path from "node:path";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { anthropicViolation } from "./fake-anthropic-upstream";
import { words, type ReceivedRequest } from "./fake-upstream-server";

// A loopback Bedrock runtime, as strict as AWS's: every request must carry a valid SigV4
// signature (recomputed here from the request as it arrived, with node:crypto: a wrong
// key, region, service, date, a header or body changed after signing is refused 403 as
// AWS refuses it) or a known Bedrock API key. InvokeModel takes Anthropic's body only as
// Bedrock does (`anthropic_version` inside, no `model` or `stream`), Converse only its own
// shapes, and streams are real AWS event-stream frames. It speaks HTTP/1.1 and, as AWS's
// SDK uses by default, HTTP/2 without TLS.
//
// Models: any id with `anthropic.` is Claude (InvokeModel; Converse refuses it here, to
// prove the gateway picks InvokeModel); others answer through Converse. In the id:
// `throttled` answers ThrottlingException, `denied` AccessDeniedException, `not-ready`
// ModelNotReadyException, `midstream` an exception frame after the first text, `surge` a
// stream whose first frame is a throttlingException, `fixture`
// (Claude, streamed) the recorded Anthropic stream tests/fixtures/anthropic/stream-thinking-text-tool.sse.
// With tools declared and no tool result yet, the model calls the first tool with {"city":"Paris"}.

export const BEDROCK_REGION = "eu-central-1";
export const BEDROCK_CREDENTIALS = { accessKeyId: "AKIAFAKEBEDROCK7EXAMPLE", secretAccessKey: "fakeSecretKey/K7MDENG+bPxRfiCYEXAMPLEKEY0123" };
export const BEDROCK_SESSION_CREDENTIALS = {
  accessKeyId: "ASIAFAKEBEDROCKSESSION1",
  secretAccessKey: "fakeSessionSecret/abcdefghijklmnop0123456789",
  sessionToken: "FwoGZXIvYXdzEFakeSessionToken//////////wEaDEXAMPLE0123456789",
};
export const BEDROCK_API_KEY = "ABSKQmVkcm9ja0FQSUtleS1mYWtlLWtleS0wMTIzNDU2Nzg5";

const FIXTURE_STREAM = path.join(import.meta.dirname, "..", "fixtures", "anthropic", "stream-thinking-text-tool.sse");
const codec = new EventStreamCodec(toUtf8, fromUtf8);
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface BedrockReceived extends ReceivedRequest {
  /** How it proved who sent it. */
  auth: "sigv4" | "api-key";
  /** The model id, decoded from the path. */
  model: string;
  operation: "invoke" | "invoke-with-response-stream" | "converse" | "converse-stream" | "count-tokens";
  bytes: Buffer;
}

export interface FakeBedrock {
  origin: string;
  baseUrl: string;
  region: string;
  received: BedrockReceived[];
  /** Requests refused, with the reason (signatures and bodies alike). */
  rejected: string[];
  close(): Promise<void>;
}

type Writer = {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array | string): unknown;
  end(chunk?: Uint8Array | string): unknown;
};

class AwsError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

function sendError(response: Writer, error: AwsError) {
  response.writeHead(error.status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    "x-amzn-requestid": randomUUID(),
  });
  response.end(JSON.stringify({ message: error.message }));
}

// ---------------------------------------------------------------- SigV4, checked

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters. */
function awsEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

const sha256Hex = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/** The signing key for a secret, day, region and service (AWS's HMAC chain). */
function signingKey(secret: string, day: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), "aws4_request");
}

/** Why the request's signature is not AWS's for it, or undefined when it is. */
function checkSignature(
  method: string,
  rawPath: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  region: string,
  secrets: Map<string, { secretAccessKey: string; sessionToken?: string }>,
): AwsError | undefined {
  const authorization = String(headers.authorization ?? "");
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;:-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!match) return new AwsError(403, "IncompleteSignatureException", "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters.");
  const [, accessKeyId, day, scopeRegion, service, signedList, signature] = match as unknown as string[];
  const account = secrets.get(accessKeyId!);
  if (!account) return new AwsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  if (service !== "bedrock") return new AwsError(403, "InvalidSignatureException", `Credential should be scoped to correct service: 'bedrock'.`);
  if (scopeRegion !== region) return new AwsError(403, "InvalidSignatureException", `Credential should be scoped to a valid region, not '${scopeRegion}'.`);
  const amzDate = String(headers["x-amz-date"] ?? "");
  const dateMatch = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!dateMatch) return new AwsError(400, "IncompleteSignatureException", "X-Amz-Date is required and must be in ISO 8601 basic format.");
  if (amzDate.slice(0, 8) !== day)
    return new AwsError(403, "InvalidSignatureException", "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.");
  const signedAt = Date.UTC(Number(dateMatch[1]), Number(dateMatch[2]) - 1, Number(dateMatch[3]), Number(dateMatch[4]), Number(dateMatch[5]), Number(dateMatch[6]));
  if (Math.abs(Date.now() - signedAt) > MAX_CLOCK_SKEW_MS)
    return new AwsError(403, "InvalidSignatureException", "Signature expired: the request time is too far from the server's time.");
  const signedHeaders = signedList!.split(";");
  // Over HTTP/2 the host is the :authority pseudo-header, and AWS's SDK signs it so.
  if (!(signedHeaders.includes("host") || signedHeaders.includes(":authority")) || !signedHeaders.includes("x-amz-date")) {
    return new AwsError(403, "InvalidSignatureException", "The host and x-amz-date headers must be signed.");
  }
  if (account.sessionToken !== undefined && headers["x-amz-security-token"] !== account.sessionToken) {
    return new AwsError(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  }
  // The body as received is hashed (an x-amz-content-sha256 header is only a signed header here, as on AWS's non-S3 services).
  const payloadHash = sha256Hex(body);
  const [pathPart, queryPart = ""] = rawPath.split("?") as [string, string?];
  // The path as it arrived, each segment encoded once more: `%3A` in a model id is `%253A` here.
  const canonicalUri = pathPart.split("/").map(awsEncode).join("/");
  const canonicalQuery = queryPart
    .split("&")
    .filter(Boolean)
    .map((pair) => pair.split("=").map((part) => awsEncode(decodeURIComponent(part.replace(/\+/g, " ")))))
    .sort(([a, av = ""], [b, bv = ""]) => (a! < b! ? -1 : a! > b! ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value = ""]) => `${key}=${value}`)
    .join("&");
  const headerValue = (name: string) => {
    const value = name === "host" || name === ":authority" ? (headers.host ?? headers[":authority"]) : headers[name];
    return (Array.isArray(value) ? value.join(",") : String(value ?? "")).trim().replace(/\s+/g, " ");
  };
  const canonicalHeaders = signedHeaders.map((name) => `${name}:${headerValue(name)}\n`).join("");
  const canonicalRequest = [method, canonicalUri, canonicalQuery, canonicalHeaders, signedList, payloadHash].join("\n");
  const scope = `${day}/${scopeRegion}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const expected = hmac(signingKey(account.secretAccessKey, day!, scopeRegion!, service!), stringToSign);
  if (!timingSafeEqual(expected, Buffer.from(signature!, "hex"))) {
    return new AwsError(
      403,
      "InvalidSignatureException",
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
    );
  }
  return undefined;
}

// ---------------------------------------------------------------- request shapes, checked

/** Why InvokeModel would refuse an Anthropic body, or undefined. */
export function invokeViolation(body: any): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "Malformed input request: expected a JSON object";
  if (typeof body.anthropic_version !== "string") return "Malformed input request: #: required key [anthropic_version] not found";
  if (!/^(bedrock-)?\d{4}-\d{2}-\d{2}$/.test(body.anthropic_version)) return "Malformed input request: #/anthropic_version: invalid value";
  for (const key of ["model", "stream"]) if (key in body) return `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`;
  if (body.anthropic_beta !== undefined && (!Array.isArray(body.anthropic_beta) || body.anthropic_beta.some((flag: unknown) => typeof flag !== "string"))) {
    return "Malformed input request: #/anthropic_beta: expected type: JSONArray of strings";
  }
  if (body.metadata !== undefined && Object.keys(body.metadata).some((key) => key !== "user_id")) return "metadata: Extra inputs are not permitted";
  return anthropicViolation(body);
}

const CONVERSE_KEYS = new Set([
  "messages",
  "system",
  "inferenceConfig",
  "toolConfig",
  "additionalModelRequestFields",
  "additionalModelResponseFieldPaths",
  "guardrailConfig",
  "promptVariables",
  "requestMetadata",
  "performanceConfig",
]);
const INFERENCE_KEYS = new Set(["maxTokens", "temperature", "topP", "stopSequences"]);
const BLOCK_KEYS = new Set(["text", "image", "document", "video", "toolUse", "toolResult", "guardContent", "cachePoint", "reasoningContent", "citationsContent"]);
const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** Why Converse would refuse a body, or undefined. */
export function converseViolation(body: any): string | undefined {
  if (typeof body !== "object" || body === null) return "Malformed input request";
  for (const key of Object.keys(body)) if (!CONVERSE_KEYS.has(key)) return `Unknown parameter in input: "${key}"`;
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  if (body.messages[0].role !== "user") return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  for (const key of Object.keys(body.inferenceConfig ?? {})) if (!INFERENCE_KEYS.has(key)) return `Unknown parameter in inferenceConfig: "${key}"`;
  const inference = body.inferenceConfig ?? {};
  if (inference.maxTokens !== undefined && !(Number.isInteger(inference.maxTokens) && inference.maxTokens >= 1)) return "inferenceConfig.maxTokens must be an integer >= 1";
  if (inference.temperature !== undefined && !(inference.temperature >= 0 && inference.temperature <= 1)) return "inferenceConfig.temperature must be within [0, 1]";
  for (const block of body.system ?? []) if (typeof block.text !== "string" || !block.text.trim()) return "The text field in the SystemContentBlock object is blank.";
  const tools = new Set<string>();
  for (const tool of body.toolConfig?.tools ?? []) {
    if (!tool.toolSpec || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.toolSpec.name ?? "") || typeof tool.toolSpec.inputSchema?.json !== "object")
      return "toolConfig.tools[].toolSpec needs a name and inputSchema.json";
    tools.add(tool.toolSpec.name);
  }
  const choice = body.toolConfig?.toolChoice;
  if (choice && !(choice.auto || choice.any || (choice.tool && tools.has(choice.tool.name)))) return "toolConfig.toolChoice must be auto, any, or a declared tool";
  let open: string[] = [];
  for (const [index, message] of body.messages.entries()) {
    if (message.role !== "user" && message.role !== "assistant") return `messages.${index}.role must be user or assistant`;
    if (index > 0 && body.messages[index - 1].role === message.role)
      return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.";
    if (!Array.isArray(message.content) || message.content.length === 0) return `messages.${index}.content must not be empty`;
    const answered: string[] = [];
    for (const block of message.content) {
      const keys = Object.keys(block);
      if (keys.length !== 1 || !BLOCK_KEYS.has(keys[0]!)) return `messages.${index}.content: each ContentBlock holds exactly one known member`;
      if ("text" in block && (typeof block.text !== "string" || !block.text.trim()))
        return "The text field in the ContentBlock object is blank. Add text to the text field, and try again.";
      if (block.image) {
        if (!["png", "jpeg", "gif", "webp"].includes(block.image.format)) return "image.format must be png, jpeg, gif or webp";
        if (typeof block.image.source?.bytes !== "string" || Buffer.from(block.image.source.bytes, "base64").length === 0) return "image.source.bytes must be base64";
      }
      if (block.toolUse) {
        if (message.role !== "assistant") return "toolUse blocks belong to assistant messages";
        if (!TOOL_ID.test(block.toolUse.toolUseId ?? "") || typeof block.toolUse.input !== "object") return "toolUse needs a toolUseId matching [a-zA-Z0-9_-]+ and an object input";
        if (!body.toolConfig) return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
      }
      if (block.toolResult) {
        if (message.role !== "user") return "toolResult blocks belong to user messages";
        if (!body.toolConfig) return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
        if (!Array.isArray(block.toolResult.content)) return "toolResult.content must be a list";
        answered.push(block.toolResult.toolUseId);
      }
    }
    if (open.length > 0 && !open.every((id) => answered.includes(id))) return `Expected toolResult blocks at messages.N.content for the following Ids: ${open.join(", ")}`;
    if (answered.some((id) => !open.includes(id))) return "The toolResult blocks must answer a toolUse of the previous turn.";
    open = message.role === "assistant" ? message.content.filter((block: any) => block.toolUse).map((block: any) => block.toolUse.toolUseId) : [];
  }
  return undefined;
}

// ---------------------------------------------------------------- answers

interface Reply {
  text: string;
  /** A tool to call instead of answering. */
  toolCall?: { id: string; name: string; input: Record<string, unknown> };
}

/** What the fake model says: a tool call when tools are declared and none was answered yet, else an echo. */
function reply(lastUserText: string, toolName: string | undefined, toolResult: string | undefined): Reply {
  if (toolResult !== undefined) return { text: `The tool said: ${toolResult}` };
  if (toolName) return { text: "Let me check.", toolCall: { id: `tooluse_${randomUUID().replaceAll("-", "").slice(0, 20)}`, name: toolName, input: { city: "Paris" } } };
  return { text: `Echo: ${lastUserText}` };
}

function anthropicReply(body: any): Reply {
  const last = body.messages.at(-1);
  const blocks = typeof last.content === "string" ? [{ type: "text", text: last.content }] : last.content;
  const result = blocks.find((block: any) => block.type === "tool_result");
  const resultText = result ? (typeof result.content === "string" ? result.content : (result.content ?? []).map((part: any) => part.text ?? "").join("")) : undefined;
  const text = blocks
    .filter((block: any) => block.type === "text")
    .map((block: any) => block.text)
    .join("");
  return reply(text, body.tools?.find((tool: any) => tool.input_schema)?.name, resultText);
}

function converseReply(body: any): Reply {
  const last = body.messages.at(-1);
  const result = last.content.find((block: any) => block.toolResult)?.toolResult;
  const resultText = result ? result.content.map((part: any) => part.text ?? JSON.stringify(part.json)).join("") : undefined;
  const text = last.content
    .filter((block: any) => typeof block.text === "string")
    .map((block: any) => block.text)
    .join("");
  return reply(text, body.toolConfig?.tools?.[0]?.toolSpec?.name, resultText);
}

function eventFrame(type: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "exception" },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** One Anthropic stream event inside a `chunk` frame, as InvokeModelWithResponseStream sends it. */
const chunkFrame = (event: string) => eventFrame("chunk", { bytes: Buffer.from(event).toString("base64") });

const INVOKE_USAGE = { input_tokens: 21, cache_creation_input_tokens: 7, cache_read_input_tokens: 5 };

/** The Anthropic events of a reply, as the API streams them. */
function anthropicEvents(model: string, answer: Reply): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [];
  const output = words(answer.text).length + (answer.toolCall ? 5 : 0);
  events.push({
    type: "message_start",
    message: {
      id: "msg_bdrk_01FakeBedrock",
      type: "message",
      role: "assistant",
      model: model.replace(/^.*anthropic\./, ""),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...INVOKE_USAGE, output_tokens: 1 },
    },
  });
  events.push({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  for (const word of words(answer.text)) events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: word } });
  events.push({ type: "content_block_stop", index: 0 });
  if (answer.toolCall) {
    const input = JSON.stringify(answer.toolCall.input);
    events.push({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: answer.toolCall.id.replace("tooluse_", "toolu_bdrk_"), name: answer.toolCall.name, input: {} },
    });
    events.push({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: input.slice(0, 5) } });
    events.push({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: input.slice(5) } });
    events.push({ type: "content_block_stop", index: 1 });
  }
  // Bedrock's message_delta counts output only; the input counts came with message_start.
  events.push({ type: "message_delta", delta: { stop_reason: answer.toolCall ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: output } });
  events.push({ type: "message_stop", "amazon-bedrock-invocationMetrics": { inputTokenCount: 21, outputTokenCount: output, invocationLatency: 120, firstByteLatency: 40 } });
  return events;
}

function anthropicMessage(model: string, answer: Reply): Record<string, unknown> {
  return {
    id: "msg_bdrk_01FakeBedrock",
    type: "message",
    role: "assistant",
    model: model.replace(/^.*anthropic\./, ""),
    content: [
      { type: "text", text: answer.text },
      ...(answer.toolCall ? [{ type: "tool_use", id: answer.toolCall.id.replace("tooluse_", "toolu_bdrk_"), name: answer.toolCall.name, input: answer.toolCall.input }] : []),
    ],
    stop_reason: answer.toolCall ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { ...INVOKE_USAGE, output_tokens: words(answer.text).length + (answer.toolCall ? 5 : 0) },
  };
}

const CONVERSE_USAGE = { inputTokens: 17, cacheReadInputTokens: 3, cacheWriteInputTokens: 0 };
/** Converse's events carry padding of varying length (against traffic analysis). */
const padding = (seed: number) => "abcdefghijklmnopqrstuvwxyz".slice(0, 3 + (seed % 20));

function converseEvents(answer: Reply): [string, Record<string, unknown>][] {
  const events: [string, Record<string, unknown>][] = [["messageStart", { role: "assistant" }]];
  for (const word of words(answer.text)) events.push(["contentBlockDelta", { contentBlockIndex: 0, delta: { text: word } }]);
  events.push(["contentBlockStop", { contentBlockIndex: 0 }]);
  if (answer.toolCall) {
    const input = JSON.stringify(answer.toolCall.input);
    events.push(["contentBlockStart", { contentBlockIndex: 1, start: { toolUse: { toolUseId: answer.toolCall.id, name: answer.toolCall.name } } }]);
    events.push(["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: input.slice(0, 4) } } }]);
    events.push(["contentBlockDelta", { contentBlockIndex: 1, delta: { toolUse: { input: input.slice(4) } } }]);
    events.push(["contentBlockStop", { contentBlockIndex: 1 }]);
  }
  const output = words(answer.text).length + (answer.toolCall ? 5 : 0);
  events.push(["messageStop", { stopReason: answer.toolCall ? "tool_use" : "end_turn" }]);
  events.push([
    "metadata",
    { usage: { ...CONVERSE_USAGE, outputTokens: output, totalTokens: CONVERSE_USAGE.inputTokens + CONVERSE_USAGE.cacheReadInputTokens + output }, metrics: { latencyMs: 95 } },
  ]);
  return events.map(([type, payload], index) => [type, { ...payload, p: padding(index) }]);
}

function converseResponse(answer: Reply): Record<string, unknown> {
  const output = words(answer.text).length + (answer.toolCall ? 5 : 0);
  return {
    output: {
      message: {
        role: "assistant",
        content: [{ text: answer.text }, ...(answer.toolCall ? [{ toolUse: { toolUseId: answer.toolCall.id, name: answer.toolCall.name, input: answer.toolCall.input } }] : [])],
      },
    },
    stopReason: answer.toolCall ? "tool_use" : "end_turn",
    usage: { ...CONVERSE_USAGE, outputTokens: output, totalTokens: CONVERSE_USAGE.inputTokens + CONVERSE_USAGE.cacheReadInputTokens + output },
    metrics: { latencyMs: 95 },
  };
}

/** The recorded Anthropic stream's events, each as its data line's exact bytes. */
export function fixtureEvents(): string[] {
  return fs
    .readFileSync(FIXTURE_STREAM, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice("data: ".length));
}

// ---------------------------------------------------------------- the server

const CONTROL_PLANE: Record<string, unknown> = {
  "/foundation-models": {
    modelSummaries: [
      {
        modelId: "amazon.nova-pro-v1:0",
        modelName: "Nova Pro",
        providerName: "Amazon",
        outputModalities: ["TEXT"],
        inferenceTypesSupported: ["ON_DEMAND"],
        modelLifecycle: { status: "ACTIVE" },
      },
      {
        modelId: "anthropic.claude-3-haiku-20240307-v1:0",
        modelName: "Claude 3 Haiku",
        providerName: "Anthropic",
        outputModalities: ["TEXT"],
        inferenceTypesSupported: ["ON_DEMAND"],
        modelLifecycle: { status: "ACTIVE" },
      },
      // Callable only through an inference profile.
      {
        modelId: "anthropic.claude-sonnet-4-5-20250929-v1:0",
        modelName: "Claude Sonnet 4.5",
        providerName: "Anthropic",
        outputModalities: ["TEXT"],
        inferenceTypesSupported: ["INFERENCE_PROFILE"],
        modelLifecycle: { status: "ACTIVE" },
      },
    ],
  },
  "/inference-profiles": {
    inferenceProfileSummaries: [
      { inferenceProfileId: "us.anthropic.claude-sonnet-4-5-20250929-v1:0", inferenceProfileName: "US Claude Sonnet 4.5", status: "ACTIVE", type: "SYSTEM_DEFINED" },
    ],
  },
};

const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/;
/** What CountTokens answers for any Claude request here. */
export const COUNTED_TOKENS = 4242;

export async function startFakeBedrockUpstream(options: { region?: string } = {}): Promise<FakeBedrock> {
  const region = options.region ?? BEDROCK_REGION;
  const accounts = new Map<string, { secretAccessKey: string; sessionToken?: string }>([
    [BEDROCK_CREDENTIALS.accessKeyId, { secretAccessKey: BEDROCK_CREDENTIALS.secretAccessKey }],
    [BEDROCK_SESSION_CREDENTIALS.accessKeyId, { secretAccessKey: BEDROCK_SESSION_CREDENTIALS.secretAccessKey, sessionToken: BEDROCK_SESSION_CREDENTIALS.sessionToken }],
  ]);
  const received: BedrockReceived[] = [];
  const rejected: string[] = [];

  async function handle(method: string, rawPath: string, headers: Record<string, string | string[] | undefined>, body: Buffer, response: Writer, closed: () => boolean) {
    const route = ROUTE.exec(rawPath.split("?")[0]!);
    let auth: BedrockReceived["auth"];
    const authorization = String(headers.authorization ?? "");
    if (authorization.startsWith("Bearer ")) {
      if (authorization.slice("Bearer ".length) !== BEDROCK_API_KEY) {
        rejected.push("unknown Bedrock API key");
        return sendError(response, new AwsError(403, "UnrecognizedClientException", "Invalid API Key format: Must start with pre-defined prefix"));
      }
      auth = "api-key";
    } else {
      const failure = checkSignature(method, rawPath, headers, body, region, accounts);
      if (failure) {
        rejected.push(`${failure.type}: ${failure.message}`);
        return sendError(response, failure);
      }
      auth = "sigv4";
    }
    // The control plane's lists (on AWS another host; the fake serves both).
    const listing = CONTROL_PLANE[rawPath.split("?")[0]!];
    if (listing && method === "GET") {
      response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": randomUUID() });
      return response.end(JSON.stringify(listing));
    }
    if (!route || method !== "POST") return sendError(response, new AwsError(404, "UnknownOperationException", "Unknown operation"));
    let model: string;
    try {
      model = decodeURIComponent(route[1]!);
    } catch {
      return sendError(response, new AwsError(400, "ValidationException", "The provided model identifier is invalid."));
    }
    const operation = route[2] as BedrockReceived["operation"];
    let json: any;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      rejected.push("body is not JSON");
      return sendError(response, new AwsError(400, "ValidationException", "Malformed input request, please reformat your input and try again."));
    }
    const record: BedrockReceived = {
      method,
      path: rawPath,
      headers: headers as http.IncomingHttpHeaders,
      body: json,
      raw: body.toString("utf8"),
      bytes: body,
      closedEarly: false,
      auth,
      model,
      operation,
    };
    received.push(record);
    const claude = model.includes("anthropic.");
    if (operation === "count-tokens") {
      // CountTokens: the InvokeModel body, base64 as AWS's JSON carries blobs, counted for Claude only.
      if (!claude) return sendError(response, new AwsError(400, "ValidationException", "The provided model doesn't support counting tokens."));
      const encoded = json?.input?.invokeModel?.body;
      let inner: unknown;
      try {
        inner = typeof encoded === "string" ? JSON.parse(Buffer.from(encoded, "base64").toString("utf8")) : undefined;
      } catch {
        inner = undefined;
      }
      const violation = inner === undefined ? "input.invokeModel.body must be the base64 of an InvokeModel body" : invokeViolation(inner);
      if (violation) {
        rejected.push(violation);
        return sendError(response, new AwsError(400, "ValidationException", violation));
      }
      response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": randomUUID() });
      return response.end(JSON.stringify({ inputTokens: COUNTED_TOKENS }));
    }
    if (operation.startsWith("invoke") && !claude) return sendError(response, new AwsError(400, "ValidationException", "This fake serves InvokeModel for Claude models only."));
    if (operation.startsWith("converse") && claude)
      return sendError(response, new AwsError(400, "ValidationException", "This fake serves Claude through InvokeModel only, as the gateway calls it."));
    const violation = operation.startsWith("invoke") ? invokeViolation(json) : converseViolation(json);
    if (violation) {
      rejected.push(violation);
      return sendError(response, new AwsError(400, "ValidationException", violation));
    }
    if (model.includes("throttled")) return sendError(response, new AwsError(429, "ThrottlingException", "Too many requests, please wait before trying again."));
    if (model.includes("denied")) return sendError(response, new AwsError(403, "AccessDeniedException", "You don't have access to the model with the specified model ID."));
    if (model.includes("not-ready")) return sendError(response, new AwsError(429, "ModelNotReadyException", "The model is not ready to serve inference requests."));

    const streamHeaders = { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": randomUUID(), "x-amzn-bedrock-content-type": "application/json" };
    const write = async (frames: Uint8Array[]) => {
      response.writeHead(200, streamHeaders);
      for (const frame of frames) {
        if (closed()) return;
        // Frames split across writes, as TCP may deliver them.
        const cut = Math.floor(frame.length / 2);
        response.write(frame.subarray(0, cut));
        await new Promise((resolve) => setImmediate(resolve));
        response.write(frame.subarray(cut));
      }
      response.end();
    };
    if (operation === "invoke") {
      response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": randomUUID(), "x-amzn-bedrock-input-token-count": "21" });
      return response.end(JSON.stringify(anthropicMessage(model, anthropicReply(json))));
    }
    if (operation === "invoke-with-response-stream") {
      if (model.includes("fixture")) return write(fixtureEvents().map(chunkFrame));
      if (model.includes("surge")) return write([exceptionFrame("throttlingException", "Too many tokens, please wait before trying again.")]);
      const events = anthropicEvents(model, anthropicReply(json)).map((event) => chunkFrame(JSON.stringify(event)));
      if (model.includes("midstream")) return write([...events.slice(0, 3), exceptionFrame("modelStreamErrorException", "The model stopped unexpectedly.")]);
      return write(events);
    }
    if (operation === "converse") {
      response.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": randomUUID() });
      return response.end(JSON.stringify(converseResponse(converseReply(json))));
    }
    if (model.includes("surge")) return write([exceptionFrame("throttlingException", "Too many tokens, please wait before trying again.")]);
    const events = converseEvents(converseReply(json)).map(([type, payload]) => eventFrame(type, payload));
    if (model.includes("midstream")) return write([...events.slice(0, 2), exceptionFrame("throttlingException", "Too many tokens, please wait before trying again.")]);
    return write(events);
  }

  // HTTP/1.1 and HTTP/2 (prior knowledge, as AWS's SDK speaks to an http:// endpoint) on one port.
  const serveHttp1 = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      handle(request.method ?? "", request.url ?? "", request.headers, Buffer.concat(chunks), response, () => response.destroyed).catch((error) => {
        if (!response.headersSent) sendError(response, new AwsError(500, "InternalServerException", String(error)));
        else response.destroy();
      });
    });
  });
  const serveHttp2 = http2.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      handle(request.method, request.url, request.headers, Buffer.concat(chunks), response as unknown as Writer, () => response.stream.destroyed).catch((error) => {
        if (!response.headersSent) sendError(response as unknown as Writer, new AwsError(500, "InternalServerException", String(error)));
        else response.stream.destroy();
      });
    });
  });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.once("readable", () => {
      const head = socket.read(Math.min(socket.readableLength, 24)) as Buffer | null;
      if (!head) return socket.destroy();
      socket.unshift(head);
      (head.toString("latin1").startsWith("PRI * HTTP/2") ? serveHttp2 : serveHttp1).emit("connection", socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: origin,
    region,
    received,
    rejected,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
