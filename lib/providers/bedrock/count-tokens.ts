import { z } from "zod";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import type { ChatRequest } from "@/lib/canonical/request";
import { toAnthropicBody } from "@/lib/providers/anthropic/convert-request";
import { estimatedTokenCountMember } from "@/lib/providers/members/chat-members";
import { postJson } from "@/lib/providers/post-json";
import type { AttemptContext, OperationMember } from "@/lib/providers/provider";
import { jsonResponse } from "@/lib/canonical/api-types";
import { COUNT_TOKENS_PATH } from "./bedrock-transport";
import { BEDROCK_ANTHROPIC_VERSION } from "./invoke";
import { parseOtherError } from "./parse-error";

// Bedrock's CountTokens for Claude: the InvokeModel body it would be sent, base64 (a blob
// in AWS's JSON), counted as Claude counts it. Models CountTokens does not know (older
// Claude models) refuse with a ValidationException; they get the tokenizer's estimate.

const countSchema = z.looseObject({ inputTokens: z.number() });

async function countClaudeTokens(request: ChatRequest, context: AttemptContext): Promise<number> {
  const { model: _model, stream: _stream, ...body } = toAnthropicBody(request, context.upstreamModel, 1, []);
  const invokeBody = Buffer.from(JSON.stringify({ ...body, anthropic_version: BEDROCK_ANTHROPIC_VERSION })).toString("base64");
  const response = await postJson(context, { path: COUNT_TOKENS_PATH, model: context.upstreamModel }, {}, { input: { invokeModel: { body: invokeBody } } }, parseOtherError);
  return countSchema.parse(await response.body.json()).inputTokens;
}

export const claudeTokenCountMember: OperationMember<"count-tokens"> = {
  async attempt(call, context, hooks) {
    try {
      return jsonResponse(200, call.render(await countClaudeTokens(call.chat, context)));
    } catch (error) {
      if (!isGatewayError(error) || error.code !== "ValidationException") throw error;
      context.warnings.push(`token count estimated: Bedrock cannot count tokens for ${context.upstreamModel}`);
      return estimatedTokenCountMember.attempt(call, context, hooks);
    }
  },
};
