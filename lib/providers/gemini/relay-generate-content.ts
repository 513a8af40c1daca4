import { parseGeminiUsage } from "@/lib/formats/gemini/render-usage";
import type { CallContext, RelayRequest, RelayedResponse } from "@/lib/providers/provider";
import { safeJson } from "@/lib/canonical/json";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { decodeSse } from "@/lib/sse/decode-sse";
import { malformedStreamError, truncatedStreamError } from "@/lib/sse/stream-errors";
import { encodeSse, SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { postGemini } from "./call-upstream";

// Gemini client -> Gemini upstream: the body goes through untouched. Streams are always
// fetched as SSE and handed to the client in the framing it asked for (SSE, or the
// JSON array that `streamGenerateContent` without `alt=sse` returns).

export async function relayGenerateContent(request: RelayRequest, context: CallContext): Promise<RelayedResponse> {
  if (!request.stream) {
    const response = await postGemini("generateContent", request.body, context);
    const bytes = Buffer.from(await response.body.arrayBuffer());
    context.meter.markFirstToken();
    meterChunk(parseUpstreamJson(bytes.toString("utf8")), context.meter);
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  }
  const response = await postGemini("streamGenerateContent", request.body, context, "?alt=sse");
  const sse = request.geminiAction?.alt === "sse";
  return {
    status: response.status,
    headers: sse ? SSE_HEADERS : { "content-type": "application/json" },
    body: relayStream(response.body, sse, context.meter),
  };
}

async function* relayStream(source: AsyncIterable<Uint8Array>, sse: boolean, meter: UsageMeter): AsyncGenerator<string> {
  let first = true;
  let ended = false;
  for await (const message of decodeSse(source)) {
    const json = safeJson(message.data) as Chunk | undefined;
    if (json === undefined) throw malformedStreamError();
    if (json?.candidates?.some((candidate) => candidate.finishReason) || json?.error || json?.promptFeedback?.blockReason) ended = true;
    meterChunk(json, meter);
    if (sse) yield encodeSse(message.data);
    else {
      yield (first ? "[" : ",\r\n") + message.data;
      first = false;
    }
  }
  if (!ended) throw truncatedStreamError();
  if (!sse) yield first ? "[]" : "]";
}

type Chunk = {
  candidates?: { content?: { parts?: { text?: string; functionCall?: { name?: string } }[] }; finishReason?: string }[];
  usageMetadata?: unknown;
  error?: unknown;
  promptFeedback?: { blockReason?: string };
} | null;

function meterChunk(json: unknown, meter: UsageMeter): void {
  const chunk = json as Chunk | undefined;
  const text = (chunk?.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? part.functionCall?.name ?? "").join("");
  if (text) meter.recordOutput(text);
  const usage = parseGeminiUsage(chunk?.usageMetadata);
  if (usage) meter.recordUsage(usage);
}
