import type { z } from "zod";
import { validationError } from "@/lib/formats/validation-error";
import { openAIFormat } from "@/lib/formats/openai";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { env } from "@/lib/env";
import type { ApiHandler, ApiResponse } from "@/lib/http/api-types";
import { spoolMultipart } from "@/lib/http/multipart";
import { logger } from "@/lib/logger";
import type { Operation } from "@/lib/providers/operation";
import type { CallContext, Provider } from "@/lib/providers/provider";
import { providers } from "@/lib/providers/registry";
import type { Channel } from "@/lib/routing/channel";
import { estimatePromptTokens, runCall } from "./call-pipeline";
import { readJsonBody } from "./read-json-body";
import { withApiKey, type GatewayContext } from "./with-api-key";

/** A provider's own (translated) way to serve an operation whose client speaks OpenAI's format. */
export interface Translation<Body> {
  supports(provider: Provider): boolean;
  call(body: Body, provider: Provider, call: CallContext, context: GatewayContext): Promise<ApiResponse>;
}

export interface OperationSpec<Schema extends z.ZodType<{ model: string }>> {
  endpoint: string;
  operation: Operation;
  schema: Schema;
  /** Whether `stream: true` is honoured (an SSE answer). */
  streams?: boolean;
  /** The text a request sends, for reservations and tokenizer estimates. */
  promptText(body: z.infer<Schema>): string;
  /** The most output it may produce, in tokens (0 when it produces none). */
  maxOutputTokens?(body: z.infer<Schema>): number;
  /** A translated path for providers without a same-format relay. */
  translation?: Translation<z.infer<Schema>>;
}

/**
 * An OpenAI-format JSON endpoint on the one call pipeline: the body is checked only as
 * far as routing and limits need (a missing `model` is a 400 before any upstream call),
 * then relayed to OpenAI-type channels as sent, or translated where a provider can.
 */
export function openAIOperationHandler<Schema extends z.ZodType<{ model: string }>>(spec: OperationSpec<Schema>): ApiHandler {
  return withApiKey(openAIFormat, spec.endpoint, async (context) => {
    const result = spec.schema.safeParse(await readJsonBody(context.request));
    if (!result.success) throw validationError(result.error);
    const body = result.data as z.infer<Schema> & Record<string, unknown>;
    const stream = spec.streams === true && body.stream === true;
    const promptText = spec.promptText(body);
    context.log.promptText = () => promptText;
    const relayKey = `openai:${spec.operation}` as const;
    const relayOf = (channel: Channel) => providers[channel.type].relays?.[relayKey];
    return runCall(context, {
      operation: spec.operation,
      model: body.model,
      stream,
      estimate: { inputTokens: estimatePromptTokens(promptText), outputTokens: spec.maxOutputTokens?.(body) ?? 0 },
      supports: (provider, channel) => relayOf(channel) !== undefined || spec.translation?.supports(provider) === true,
      // Only an SSE answer has an error event; any other body is cut when it breaks.
      renderStreamError: stream ? openAIFormat.renderStreamError : () => undefined,
      attempt(channel, call) {
        const relay = relayOf(channel);
        if (relay) {
          const includeUsage = stream && (body.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage === true;
          return relay({ body, stream, includeUsage, clientHeaders: context.request.headers }, call);
        }
        return spec.translation!.call(body, providers[channel.type], call, context);
      },
    });
  });
}

export interface UploadSpec {
  endpoint: string;
  operation: Operation;
  /** The text field that carries the prompt, if any, for estimates. */
  promptField?: string;
}

/**
 * An OpenAI-format multipart endpoint (uploads): the body is spooled as it arrives under
 * MAX_UPLOAD_BYTES, and relayed part by part to OpenAI-type channels with the model renamed.
 */
export function openAIUploadHandler(spec: UploadSpec): ApiHandler {
  return withApiKey(openAIFormat, spec.endpoint, async (context) => {
    const form = await spoolMultipart(context.request, env.MAX_UPLOAD_BYTES);
    context.log.finishHooks.push(() => void form.dispose().catch((error) => logger.error({ err: error }, "spooled upload not removed")));
    const model = form.field("model")?.trim();
    if (!model) throw new GatewayError("invalid_request", "you must provide a model parameter", { param: "model", code: "invalid_value" });
    const stream = form.field("stream") === "true";
    const promptText = spec.promptField ? (form.field(spec.promptField) ?? "") : "";
    context.log.promptText = () => promptText;
    const relayKey = `openai:${spec.operation}` as const;
    return runCall(context, {
      operation: spec.operation,
      model,
      stream,
      estimate: { inputTokens: estimatePromptTokens(promptText), outputTokens: 0 },
      supports: (provider) => provider.relays?.[relayKey] !== undefined,
      renderStreamError: stream ? openAIFormat.renderStreamError : () => undefined,
      attempt: (channel, call) =>
        providers[channel.type].relays![relayKey]!({ body: {}, form, stream, includeUsage: false, clientHeaders: context.request.headers }, call),
    });
  });
}
