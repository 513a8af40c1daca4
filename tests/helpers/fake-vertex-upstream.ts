import { generateKeyPairSync, randomBytes, verify, type KeyObject } from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import { gaxios } from "google-auth-library";
import path from "node:path";
import { anthropicViolation } from "./fake-anthropic-upstream";
import { geminiViolation } from "./fake-gemini-upstream";
import { fakeVector } from "./fake-openai-operations";
import { lastUserText, startFakeServer, words, type FakeServer, type ReceivedRequest } from "./fake-upstream-server";

// A loopback Vertex AI, as strict as Google's: its token endpoint issues access tokens
// only for a JWT bearer grant whose RS256 assertion verifies against the service
// account's public key (a throwaway RSA pair made here; no real key is ever used) and
// names this endpoint as its audience; every API call needs one of those tokens, the
// configured project and location in its path, a role on every Gemini content, and for
// Claude the model in the URL only and `anthropic_version` in the body.

export const VERTEX_PROJECT = "gateway-test-project";
export const VERTEX_LOCATION = "us-east5";
const FIXTURES = path.join(import.meta.dirname, "..", "fixtures");
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform";
const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";

// The betas Vertex takes in `anthropic-beta`; it refuses others (structured outputs,
// the Files API, OAuth) with a 400 naming them.
const VERTEX_BETAS = new Set([
  "claude-code-20250219",
  "interleaved-thinking-2025-05-14",
  "context-management-2025-06-27",
  "fine-grained-tool-streaming-2025-05-14",
  "token-efficient-tools-2025-02-19",
  "output-128k-2025-02-19",
  "computer-use-2025-01-24",
  "context-1m-2025-08-07",
  "tool-search-tool-2025-10-19",
]);

export interface ServiceAccount {
  /** The key file's JSON, as an administrator pastes it. */
  json: string;
  clientEmail: string;
  publicKey: KeyObject;
}

/** A throwaway service-account key whose token_uri is `tokenUri`. */
export function createServiceAccount(tokenUri: string, project = VERTEX_PROJECT, name = "gateway"): ServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const clientEmail = `${name}@${project}.iam.gserviceaccount.com`;
  const key = {
    type: "service_account",
    project_id: project,
    private_key_id: randomBytes(20).toString("hex"),
    private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    client_email: clientEmail,
    client_id: "100000000000000000001",
    auth_uri: "https://accounts.google.com/o/oauth2/auth",
    token_uri: tokenUri,
    universe_domain: "googleapis.com",
  };
  return { json: JSON.stringify(key, null, 2), clientEmail, publicKey };
}

function googleError(response: http.ServerResponse, code: number, status: string, message: string, extra: Record<string, unknown> = {}) {
  response.writeHead(code, { "content-type": "application/json; charset=UTF-8" });
  response.end(JSON.stringify({ error: { code, message, status, ...extra } }));
}

function anthropicError(response: http.ServerResponse, status: number, type: string, message: string) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ type: "error", error: { type, message }, request_id: "req_vrtx_fake" }));
}

const base64url = (text: string) => Buffer.from(text, "base64url");

export interface FakeVertex extends FakeServer {
  baseUrl: string;
  tokenUri: string;
  /** The service account the fake knows first. */
  serviceAccount: ServiceAccount;
  /** One more service account the token endpoint knows. */
  newServiceAccount(): ServiceAccount;
  /** Grants made, and refused. */
  tokenRequests: number;
  /** Seconds each new access token lives. */
  tokenLifetimeSeconds: number;
  /** The bytes of each streamed answer, by the request that got it. */
  streamed: Map<ReceivedRequest, string>;
}

export async function startFakeVertexUpstream(options: { project?: string; location?: string } = {}): Promise<FakeVertex> {
  const project = options.project ?? VERTEX_PROJECT;
  const location = options.location ?? VERTEX_LOCATION;
  const tokens = new Map<string, number>();
  const accounts = new Map<string, ServiceAccount>();
  let fake: FakeVertex;

  const grant = (request: ReceivedRequest, response: http.ServerResponse) => {
    fake.tokenRequests += 1;
    const refuse = (description: string) => {
      fake.rejected.push(`token: ${description}`);
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: "invalid_grant", error_description: description }));
    };
    if (request.body?.grant_type !== JWT_BEARER) return refuse("Invalid grant_type.");
    const [header, payload, signature] = String(request.body.assertion ?? "").split(".");
    if (!header || !payload || !signature) return refuse("Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.");
    const head = JSON.parse(base64url(header).toString());
    const claims = JSON.parse(base64url(payload).toString());
    if (head.alg !== "RS256") return refuse("Invalid JWT: the algorithm must be RS256.");
    const account = accounts.get(claims.iss);
    if (!account) return refuse("Invalid grant: account not found");
    if (!verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), account.publicKey, base64url(signature))) return refuse("Invalid JWT Signature.");
    const now = Math.floor(Date.now() / 1000);
    // The audience is the endpoint that redeems it: this one, or Google's, which the vendor SDKs always name.
    if (claims.aud !== fake.tokenUri && claims.aud !== GOOGLE_TOKEN_URI) return refuse("Invalid JWT: aud must be the token endpoint.");
    if (
      !String(claims.scope ?? "")
        .split(" ")
        .includes(CLOUD_PLATFORM)
    )
      return refuse("Invalid JWT: scope must include cloud-platform.");
    if (!(claims.iat <= now + 60 && claims.exp > now && claims.exp - claims.iat <= 3600))
      return refuse("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.");
    const token = `ya29.fake-${randomBytes(24).toString("base64url")}`;
    tokens.set(token, Date.now() + fake.tokenLifetimeSeconds * 1000);
    response.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    response.end(JSON.stringify({ access_token: token, expires_in: fake.tokenLifetimeSeconds, token_type: "Bearer" }));
  };

  async function handle(request: ReceivedRequest, response: http.ServerResponse) {
    if (request.path === "/token" && request.method === "POST") return grant(request, response);
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
    const expires = bearer ? tokens.get(bearer) : undefined;
    if (!expires || expires <= Date.now()) {
      // A GET without a token is the gateway's own loop probe of a new channel, not a call.
      if (request.method !== "GET") fake.rejected.push(`unauthenticated ${request.path}`);
      return googleError(
        response,
        401,
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
      );
    }
    const match = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)(\?alt=sse)?$/.exec(request.path);
    if (!match) return googleError(response, 404, "NOT_FOUND", "The requested URL was not found on this server.");
    const [, pathProject, pathLocation, publisher, encodedModel, method, sse] = match;
    if (pathProject !== project)
      return googleError(
        response,
        403,
        "PERMISSION_DENIED",
        `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${pathProject}/locations/${pathLocation}' (or it may not exist).`,
      );
    if (pathLocation !== location) return googleError(response, 400, "FAILED_PRECONDITION", `Location ${pathLocation} is not served by this endpoint.`);
    const model = decodeURIComponent(encodedModel!);
    if (model.includes("throttled")) {
      return googleError(
        response,
        429,
        "RESOURCE_EXHAUSTED",
        `Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: ${model}.`,
        {
          details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" }],
        },
      );
    }
    if (publisher === "anthropic") return claude(request, response, model, method!);
    return gemini(request, response, model, method!, Boolean(sse));
  }

  function gemini(request: ReceivedRequest, response: http.ServerResponse, model: string, method: string, sse: boolean) {
    const body = request.body ?? {};
    const invalid = (message: string) => {
      fake.rejected.push(message);
      googleError(response, 400, "INVALID_ARGUMENT", message);
    };
    if (method === "predict") {
      const instances = body.instances;
      if (!Array.isArray(instances) || instances.length === 0) return invalid("instances must not be empty");
      const limit = model.startsWith("gemini-embedding") ? 1 : 250;
      if (instances.length > limit)
        return invalid(
          `Unable to submit request because it included too many instances. Reduce the number of instances and try again: batchSize must be ${limit} but the entered value was ${instances.length}.`,
        );
      if (!instances.every((instance: any) => typeof instance?.content === "string" && instance.content)) return invalid("instances[].content must be a non-empty string");
      const dimensions = body.parameters?.outputDimensionality ?? 4;
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      response.end(
        JSON.stringify({
          predictions: instances.map((instance: any) => ({
            embeddings: { statistics: { truncated: false, token_count: words(instance.content).length + 1 }, values: fakeVector(instance.content, dimensions) },
          })),
          metadata: { billableCharacterCount: instances.reduce((total: number, instance: any) => total + instance.content.length, 0) },
        }),
      );
      return;
    }
    if (method === "countTokens" && body.generateContentRequest !== undefined)
      return invalid('Invalid JSON payload received. Unknown name "generateContentRequest": Cannot find field.');
    // Vertex, unlike the Gemini API, wants the role of every content.
    for (const [index, content] of (body.contents ?? []).entries()) {
      if (content.role !== "user" && content.role !== "model") return invalid(`Please use a valid role: user, model. (contents[${index}])`);
    }
    const violation = geminiViolation(body, model);
    if (violation) return invalid(violation);
    if (method === "countTokens") {
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      response.end(JSON.stringify({ totalTokens: 555, totalBillableCharacters: 1200 }));
      return;
    }
    const stream = method === "streamGenerateContent";
    if (!stream && method !== "generateContent") return googleError(response, 404, "NOT_FOUND", `Method ${method} not found.`);
    if (stream && !sse) return invalid("the fake only streams with alt=sse");
    if (model.startsWith("gemini-tools")) {
      if (stream) {
        const bytes = fs.readFileSync(path.join(FIXTURES, "gemini", "stream-parallel-calls.sse"), "utf8");
        fake.streamed.set(request, bytes);
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(bytes);
        return;
      }
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      response.end(
        JSON.stringify({
          candidates: [
            {
              content: {
                role: "model",
                parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_weather", args: { city: "Rome" } } }],
              },
              finishReason: "STOP",
            },
          ],
          usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 12, totalTokenCount: 42, trafficType: "ON_DEMAND" },
          modelVersion: model,
        }),
      );
      return;
    }
    const reply = words(`Echo: ${lastUserText(body.contents)}`);
    const usage = (done: number) => ({ promptTokenCount: 19, candidatesTokenCount: done, totalTokenCount: 19 + done, trafficType: "ON_DEMAND" });
    if (!stream) {
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" });
      response.end(
        JSON.stringify({
          candidates: [{ content: { role: "model", parts: [{ text: reply.join("") }] }, finishReason: "STOP", avgLogprobs: -0.1 }],
          usageMetadata: usage(reply.length),
          modelVersion: model,
          createTime: new Date().toISOString(),
          responseId: "vertex-resp",
        }),
      );
      return;
    }
    let bytes = "";
    reply.forEach((word, index) => {
      const candidate: Record<string, unknown> = { content: { role: "model", parts: [{ text: word }] } };
      if (index === reply.length - 1) candidate.finishReason = "STOP";
      bytes += `data: ${JSON.stringify({ candidates: [candidate], usageMetadata: usage(index + 1), modelVersion: model, responseId: "vertex-resp" })}\r\n\r\n`;
    });
    fake.streamed.set(request, bytes);
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(bytes);
  }

  function claude(request: ReceivedRequest, response: http.ServerResponse, model: string, method: string) {
    const body = request.body ?? {};
    const invalid = (message: string) => {
      fake.rejected.push(message);
      anthropicError(response, 400, "invalid_request_error", message);
    };
    if (method !== "rawPredict" && method !== "streamRawPredict") return googleError(response, 404, "NOT_FOUND", `Method ${method} not found.`);
    const version = body.anthropic_version;
    if (version === undefined) return invalid("anthropic_version: Field required");
    // The documented value; the vendor's own SDK now also sends the API's date form here.
    if (version !== "vertex-2023-10-16" && !/^\d{4}-\d{2}-\d{2}$/.test(String(version))) return invalid(`anthropic_version: Input should be 'vertex-2023-10-16'`);
    const betas = String(request.headers["anthropic-beta"] ?? "")
      .split(",")
      .map((beta) => beta.trim())
      .filter(Boolean);
    const refused = betas.filter((beta) => !VERTEX_BETAS.has(beta));
    if (refused.length > 0)
      return invalid(
        `Unexpected value(s) \`${refused.join("`, `")}\` for the \`anthropic-beta\` header. Please consult our documentation at docs.anthropic.com or try again without the header.`,
      );
    if (model === "count-tokens") {
      if (method !== "rawPredict" || typeof body.model !== "string") return invalid("model: Field required");
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ input_tokens: 3131 }));
      return;
    }
    if ("model" in body) return invalid("model: Extra inputs are not permitted");
    if ((method === "streamRawPredict") !== (body.stream === true)) return invalid(`stream must be ${method === "streamRawPredict"} on ${method}`);
    const violation = anthropicViolation(body);
    if (violation) return invalid(violation);
    if (model.startsWith("claude-tools")) {
      if (body.stream) {
        const bytes = fs.readFileSync(path.join(FIXTURES, "anthropic", "stream-thinking-text-tool.sse"), "utf8");
        fake.streamed.set(request, bytes);
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(bytes);
      } else {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(fs.readFileSync(path.join(FIXTURES, "anthropic", "message-tool-use.json")));
      }
      return;
    }
    const reply = words(`Echo: ${lastUserText(body.messages)}`);
    const usage = { input_tokens: 23, cache_creation_input_tokens: 0, cache_read_input_tokens: 7, output_tokens: reply.length };
    if (!body.stream) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          id: "msg_vrtx_01",
          type: "message",
          role: "assistant",
          model,
          content: [{ type: "text", text: reply.join("") }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    let bytes = "";
    const event = (type: string, data: Record<string, unknown>) => (bytes += `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", {
      message: { id: "msg_vrtx_02", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } },
    });
    event("ping", {});
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    for (const word of reply) event("content_block_delta", { index: 0, delta: { type: "text_delta", text: word } });
    event("content_block_stop", { index: 0 });
    event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: reply.length } });
    event("message_stop", {});
    fake.streamed.set(request, bytes);
    response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    response.end(bytes);
  }

  const server = await startFakeServer(handle);
  const tokenUri = `${server.origin}/token`;
  const newServiceAccount = () => {
    const account = createServiceAccount(tokenUri, project, `gateway-${accounts.size + 1}`);
    accounts.set(account.clientEmail, account);
    return account;
  };
  fake = Object.assign(server, {
    baseUrl: server.origin,
    tokenUri,
    serviceAccount: newServiceAccount(),
    newServiceAccount,
    tokenRequests: 0,
    tokenLifetimeSeconds: 3600,
    streamed: new Map<ReceivedRequest, string>(),
  });
  return fake;
}

/**
 * A transport for google-auth-library that sends its token request to `tokenUri`: the
 * vendor SDKs always post the grant to Google's endpoint, whatever the key's token_uri.
 */
export function tokenUriTransporter(tokenUri: string) {
  const transporter = new gaxios.Gaxios();
  transporter.interceptors.request.add({
    resolved: async (config) => {
      if (config.url.href === GOOGLE_TOKEN_URI) config.url = new URL(tokenUri);
      return config;
    },
  });
  return transporter;
}
