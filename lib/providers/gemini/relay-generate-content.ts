import { parseGeminiUsage } from "@/lib/formats/gemini/render-usage";
import type { AttemptContext, ChatCall, RelayedResponse } from "@/lib/providers/provider";
import { parseUpstreamJson } from "@/lib/providers/upstream-http";
import { SSE_HEADERS } from "@/lib/sse/encode-sse";
import type { UsageMeter } from "@/lib/usage/usage-meter";
import { postGemini } from "./call-upstream";
import { passThroughGeminiStream } from "./pass-through-stream";

// Gemini client -> Gemini upstream: the body goes through untouched. Streams are always
// fetched as SSE and handed to the client as the upstream's own chunks, in the framing it
// asked for (SSE, or the JSON array that `streamGenerateContent` without `alt=sse`
// returns): pass-through-stream.ts.

export async function relayGenerateContent(request: NonNullable<ChatCall["relay"]>, context: AttemptContext): Promise<RelayedResponse> {
  if (!request.stream) {
    const response = await postGemini("generateContent", request.body, context);
    const bytes = await response.body.bytes();
    context.meter.markFirstToken();
    meterChunk(parseUpstreamJson(bytes.toString("utf8")), context.meter);
    return { status: response.status, headers: { "content-type": "application/json" }, body: bytes };
  }
  const response = await postGemini("streamGenerateContent", request.body, context, "alt=sse");
  const sse = request.geminiAction?.alt === "sse";
  return {
    status: response.status,
    headers: sse ? SSE_HEADERS : { "content-type": "application/json" },
    body: passThroughGeminiStream(response.body, sse ? "sse" : "array", context.meter),
  };
}

type Chunk = {
  candidates?: { content?: { parts?: { text?: string; functionCall?: { name?: string } }[] } }[];
  usageMetadata?: unknown;
} | null;

function meterChunk(json: unknown, meter: UsageMeter): void {
  const chunk = json as Chunk | undefined;
  const text = (chunk?.candidates?.[0]?.content?.parts ?? []).map((part) => part.text ?? part.functionCall?.name ?? "").join("");
  if (text) meter.recordOutput(text);
  const usage = parseGeminiUsage(chunk?.usageMetadata);
  if (usage) meter.recordUsage(usage);
}
