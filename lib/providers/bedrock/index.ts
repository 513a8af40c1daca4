import { anthropicChat } from "@/lib/providers/anthropic";
import { relayMessages } from "@/lib/providers/anthropic/relay-messages";
import { chatMember, estimatedTokenCountMember, translatedCompactionMember, translatedResponsesMember } from "@/lib/providers/members/chat-members";
import { byModelFamily } from "@/lib/providers/members/model-families";
import type { AttemptContext, Provider } from "@/lib/providers/provider";
import type { CanonicalChat } from "@/lib/providers/members/translated-chat";
import { bedrockTransport } from "./bedrock-transport";
import { converseChat } from "./converse";
import { claudeTokenCountMember } from "./count-tokens";
import { listBedrockModels } from "./list-models";
import { bedrockSettings } from "./settings";

// AWS Bedrock. Claude models (an id or inference profile with `anthropic.` in it) speak
// Anthropic's Messages format through InvokeModel, so an Anthropic client's request is
// relayed as its own bytes (thinking, cache_control and betas intact) and its stream comes
// back as Anthropic's events; every other model is reached through the Converse API,
// translated from the canonical request. The transport makes either a Bedrock request.

/** Whether a model id, inference profile or ARN names a Claude model. */
export const isAnthropicModel = (model: string) => model.includes("anthropic.");

/** Claude models speak Anthropic's Messages through InvokeModel; every other model, Converse. */
const bedrockFamily = (model: string) => (isAnthropicModel(model) ? "anthropic" : "converse");

const bedrockOperations = byModelFamily(bedrockFamily, {
  anthropic: {
    chat: chatMember(anthropicChat, { anthropic: relayMessages }),
    responses: translatedResponsesMember(anthropicChat),
    compact: translatedCompactionMember(anthropicChat),
    "count-tokens": claudeTokenCountMember,
  },
  converse: {
    chat: chatMember(converseChat),
    responses: translatedResponsesMember(converseChat),
    compact: translatedCompactionMember(converseChat),
    "count-tokens": estimatedTokenCountMember,
  },
});

const bedrockChat: CanonicalChat = (request, context: AttemptContext) =>
  isAnthropicModel(context.upstreamModel) ? anthropicChat(request, context) : converseChat(request, context);

export const bedrockProvider: Provider = {
  defaultBaseUrl: "https://bedrock-runtime.{region}.amazonaws.com",
  requiresApiKey: true,
  apiKeyHelp: 'AWS credentials as JSON, {"accessKeyId": "AKIA…", "secretAccessKey": "…"} with "sessionToken" for temporary ones, or a Bedrock API key (sent as a Bearer token).',
  ownedBy: "aws-bedrock",
  settings: bedrockSettings,
  transport: bedrockTransport,
  listModels: listBedrockModels,
  operations: bedrockOperations,
  probe: bedrockChat,
};
