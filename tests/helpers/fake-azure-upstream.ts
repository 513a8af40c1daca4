import http from "node:http";
import type { AddressInfo } from "node:net";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "./fake-openai-upstream";

// A loopback Azure OpenAI resource, as strict as Azure about what is Azure's own: the key
// in `api-key` (or, on the v1 API only, as a Bearer token), the deployment paths with a
// supported `api-version`, deployments that exist. Behind it, each deployment's model is
// served by the OpenAI fake, so the bodies are held to OpenAI's rules too. Streams open
// with the chunk Azure sends first (no choices, the prompt's filter results), and one
// deployment's model refuses every prompt with Azure's content filter error.

export const AZURE_KEY = "azure-key-0123456789abcdef0123456789";

/** Deployment name -> the model of the OpenAI fake that serves it. */
export const AZURE_DEPLOYMENTS: Record<string, string> = {
  "gpt4o-prod": "fake-upstream-model",
  "gpt4o-tools": "fake-tools",
  "embed-prod": "text-embedding-3-small",
  "gpt4o-filtered": "filtered",
  "gpt4o-limited": "fake-rate-limited",
};

/** API versions this fake serves, as a resource lists its supported ones. */
const API_VERSIONS = new Set(["2024-10-21", "2025-04-01-preview"]);
const DEPLOYMENT_OPERATIONS = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions|embeddings|images\/generations|audio\/speech)$/;
const V1_OPERATIONS = /^\/openai\/v1\/(chat\/completions|completions|embeddings|images\/generations|audio\/speech|responses|responses\/compact|responses\/input_tokens)$/;

export interface FakeAzure {
  baseUrl: string;
  /** What the resource received: path with query, headers, parsed body. */
  received: { path: string; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[];
  openai: FakeUpstream;
  close(): Promise<void>;
}

function azureError(response: http.ServerResponse, status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { code, message, ...extra } }));
}

const CONTENT_FILTER_ERROR = {
  message:
    "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
  type: null,
  param: "prompt",
  code: "content_filter",
  status: 400,
  innererror: {
    code: "ResponsibleAIPolicyViolation",
    content_filter_result: {
      hate: { filtered: false, severity: "safe" },
      jailbreak: { filtered: false, detected: false },
      self_harm: { filtered: false, severity: "safe" },
      sexual: { filtered: false, severity: "safe" },
      violence: { filtered: true, severity: "medium" },
    },
  },
};

/** The chunk an Azure stream opens with: no choices, the prompt's filter results. */
const PROMPT_FILTER_CHUNK = `data: ${JSON.stringify({
  choices: [],
  created: 0,
  id: "",
  model: "",
  object: "",
  prompt_filter_results: [
    {
      prompt_index: 0,
      content_filter_results: {
        hate: { filtered: false, severity: "safe" },
        self_harm: { filtered: false, severity: "safe" },
        sexual: { filtered: false, severity: "safe" },
        violence: { filtered: false, severity: "safe" },
      },
    },
  ],
})}\n\n`;

export async function startFakeAzureUpstream(): Promise<FakeAzure> {
  const openai = await startFakeOpenAIUpstream();
  const received: FakeAzure["received"] = [];
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", "http://azure.local");
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return azureError(response, 400, "BadRequest", "The request body is not valid JSON.");
    }
    received.push({ path: `${url.pathname}${url.search}`, headers: request.headers, body });

    const v1 = V1_OPERATIONS.exec(url.pathname);
    const bearerKey = request.headers.authorization === `Bearer ${AZURE_KEY}`;
    if (request.headers["api-key"] !== AZURE_KEY && !(v1 && bearerKey)) {
      return azureError(
        response,
        401,
        "401",
        "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
      );
    }
    let deployment: string | undefined;
    let operation: string;
    const dated = DEPLOYMENT_OPERATIONS.exec(url.pathname);
    const resourceResponses = /^\/openai\/(responses(?:\/compact|\/input_tokens)?)$/.exec(url.pathname);
    if (dated || resourceResponses) {
      const version = url.searchParams.get("api-version");
      if (!version) return azureError(response, 404, "404", "Resource not found");
      if (!API_VERSIONS.has(version)) return azureError(response, 400, "BadRequest", "API version not supported");
      deployment = dated ? decodeURIComponent(dated[1]!) : String(body.model ?? "");
      operation = dated ? dated[2]! : resourceResponses![1]!;
    } else if (v1) {
      deployment = String(body.model ?? "");
      operation = v1[1]!;
    } else {
      return azureError(response, 404, "404", "Resource not found");
    }
    const model = AZURE_DEPLOYMENTS[deployment];
    if (!model) {
      return azureError(
        response,
        404,
        "DeploymentNotFound",
        "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.",
      );
    }
    if (model === "filtered") {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: CONTENT_FILTER_ERROR }));
      return;
    }
    // Served by the OpenAI fake under the deployment's model.
    const upstream = await fetch(`${openai.baseUrl}/${operation}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${UPSTREAM_API_KEY}` },
      body: JSON.stringify({ ...body, model }),
    });
    const headers: Record<string, string> = { "content-type": upstream.headers.get("content-type") ?? "application/json" };
    const retryAfter = upstream.headers.get("retry-after");
    if (retryAfter) headers["retry-after"] = retryAfter;
    response.writeHead(upstream.status, headers);
    const streamed = headers["content-type"].startsWith("text/event-stream");
    if (streamed && operation === "chat/completions") response.write(PROMPT_FILTER_CHUNK);
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl,
    received,
    openai,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await openai.close();
    },
  };
}
