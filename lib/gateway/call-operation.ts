import type { Runtime } from "@/lib/runtime";
import type { z } from "zod";
import { validationError } from "@/lib/formats/validation-error";
import { openAIFormat } from "@/lib/formats/openai";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiHandler } from "@/lib/canonical/api-types";
import { spoolMultipart } from "@/lib/gateway/multipart";
import { logger } from "@/lib/logger";
import { estimatePromptTokens, runCall } from "./call-pipeline";
import { readJsonBody } from "./read-json-body";
import { withApiKey } from "./with-api-key";

/** The OpenAI-format operations with a JSON body, and those with an upload. */
type JsonOperation = "completions" | "embeddings" | "images" | "audio-speech" | "rerank";
type UploadOperation = "image-edits" | "audio-transcription";

export interface OperationSpec<Schema extends z.ZodType<{ model: string }>> {
  endpoint: string;
  operation: JsonOperation;
  schema: Schema;
  /** Whether `stream: true` is honoured (an SSE answer). */
  streams?: boolean;
  /** The text a request sends, for reservations and tokenizer estimates. */
  promptText(body: z.infer<Schema>): string;
  /** The most output it may produce, in tokens (0 when it produces none). */
  maxOutputTokens?(body: z.infer<Schema>): number;
}

/**
 * An OpenAI-format JSON endpoint on the one call pipeline: the body is checked only as
 * far as routing and limits need (a missing `model` is a 400 before any upstream call),
 * then handed to each channel's member for the operation (a relay of the client's bytes,
 * or a provider's own translation).
 */
export function openAIOperationHandler<Schema extends z.ZodType<{ model: string }>>(spec: OperationSpec<Schema>): ApiHandler<Runtime> {
  return withApiKey(openAIFormat, spec.endpoint, async (context) => {
    const result = spec.schema.safeParse(await readJsonBody(context.request));
    if (!result.success) throw validationError(result.error);
    const body = result.data as z.infer<Schema> & Record<string, unknown>;
    const stream = spec.streams === true && body.stream === true;
    const promptText = spec.promptText(body);
    context.call.promptText = () => promptText;
    const includeUsage = stream && (body.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage === true;
    return runCall(context, {
      operation: spec.operation,
      model: body.model,
      stream,
      estimate: { inputTokens: estimatePromptTokens(promptText), outputTokens: spec.maxOutputTokens?.(body) ?? 0 },
      // Only an SSE answer has an error event; any other body is cut when it breaks.
      renderStreamError: stream ? openAIFormat.renderStreamError : () => undefined,
      call: { body, model: body.model, stream, includeUsage, clientHeaders: context.request.headers },
    });
  });
}

export interface UploadSpec {
  endpoint: string;
  operation: UploadOperation;
  /** The text field that carries the prompt, if any, for estimates. */
  promptField?: string;
}

/**
 * An OpenAI-format multipart endpoint (uploads): the body is spooled as it arrives under
 * MAX_UPLOAD_BYTES, and relayed part by part to OpenAI-type channels with the model renamed.
 */
export function openAIUploadHandler(spec: UploadSpec): ApiHandler<Runtime> {
  return withApiKey(openAIFormat, spec.endpoint, async (context) => {
    const form = await spoolMultipart(context.request, env.MAX_UPLOAD_BYTES);
    context.call.onFinish(() => void form.dispose().catch((error) => logger.error({ err: error }, "spooled upload not removed")));
    const model = form.field("model")?.trim();
    if (!model) throw new GatewayError("invalid_request", "you must provide a model parameter", { param: "model", code: "invalid_value" });
    const stream = form.field("stream") === "true";
    const promptText = spec.promptField ? (form.field(spec.promptField) ?? "") : "";
    context.call.promptText = () => promptText;
    return runCall(context, {
      operation: spec.operation,
      model,
      stream,
      estimate: { inputTokens: estimatePromptTokens(promptText), outputTokens: 0 },
      renderStreamError: stream ? openAIFormat.renderStreamError : () => undefined,
      call: { body: {}, form, model, stream, includeUsage: false, clientHeaders: context.request.headers },
    });
  });
}
