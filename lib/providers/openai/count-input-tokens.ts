import { jsonResponse } from "@/lib/canonical/api-types";
import { isGatewayError } from "@/lib/canonical/gateway-error";
import { relayedBody } from "@/lib/canonical/rewrite-json-object";
import { estimatedTokenCountMember } from "@/lib/providers/members/chat-members";
import type { OperationMember } from "@/lib/providers/provider";
import { postOpenAI } from "./call-upstream";

/**
 * Token counting on an OpenAI-format upstream: a Responses body goes to the upstream's own
 * /responses/input_tokens; a server without it (404, learnt) and every other body get the
 * tokenizer's estimate.
 */
export const openAITokenCountMember: OperationMember<"count-tokens"> = {
  async attempt(call, context, hooks) {
    const native = call.responses;
    const { channel, upstreamModel } = context;
    if (native && !native.lacksCounting.lacks(channel.id, upstreamModel)) {
      try {
        const response = await postOpenAI("/responses/input_tokens", relayedBody(native.relay.bytes, native.relay.body, { model: upstreamModel }), context, false);
        const answer = (await response.body.json()) as { input_tokens?: unknown } | null;
        if (typeof answer?.input_tokens === "number") return jsonResponse(200, call.render(answer.input_tokens));
        context.warnings.push(`channel ${channel.name} answered /responses/input_tokens without a count; estimated`);
      } catch (error) {
        if (!isGatewayError(error) || error.upstreamStatus !== 404) throw error;
        native.lacksCounting.learn(channel.id, upstreamModel);
        context.warnings.push(`channel ${channel.name} has no /responses/input_tokens; estimated`);
      }
    }
    return estimatedTokenCountMember.attempt(call, context, hooks);
  },
};
