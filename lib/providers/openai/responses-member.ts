import { isGatewayError } from "@/lib/canonical/gateway-error";
import { translatedResponses } from "@/lib/providers/members/chat-members";
import { NO_HOSTED_TOOLS } from "@/lib/providers/members/hosted-tools";
import type { CanonicalChat } from "@/lib/providers/members/translated-chat";
import type { OperationMember } from "@/lib/providers/provider";
import { relayResponses } from "./relay-responses";

/**
 * /v1/responses on an OpenAI-format upstream: relayed as the client's bytes. A chat-only
 * server (vLLM, Ollama) answers 404 there: it is translated for through chat completions
 * from then on, unless the call continues an answer only that upstream holds. Fields
 * that only steer OpenAI's own service (client_metadata, prompt_cache_key...) travel in
 * the relayed bytes and mean nothing to the translation.
 */
export function openAIResponsesMember(chat: CanonicalChat, path = "/responses"): OperationMember<"responses"> {
  return {
    async attempt(call, context, hooks) {
      const { channel, upstreamModel } = context;
      if (!call.lacksResponses.lacks(channel.id, upstreamModel)) {
        try {
          return await relayResponses(call.relay, context, path);
        } catch (error) {
          if (!isGatewayError(error) || error.upstreamStatus !== 404 || call.continuesRelayed) throw error;
          call.lacksResponses.learn(channel.id, upstreamModel);
          context.warnings.push(`channel ${channel.name} has no ${path}; translated through chat completions`);
        }
      }
      // Chat completions has no hosted tools that OpenAI-compatible servers share.
      return translatedResponses(chat, NO_HOSTED_TOOLS, call, context, hooks);
    },
  };
}

/**
 * /v1/responses/compact: OpenAI's own endpoint where the upstream has it (its opaque item
 * passes through untouched); a chat-only server gets the gateway's compaction through chat.
 */
export function openAICompactionMember(chat: CanonicalChat): OperationMember<"compact"> {
  const { attempt } = openAIResponsesMember(chat, "/responses/compact");
  return { attempt };
}
