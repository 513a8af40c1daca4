import { GatewayError } from "@/lib/canonical/gateway-error";
import { OPERATIONS, type Operation } from "@/lib/providers/operation";
import type { OperationMember, ProviderOperations } from "@/lib/providers/provider";
import type { Channel } from "@/lib/routing/channel";

// One Vertex channel serves models of two wire formats: Claude models speak Anthropic's
// Messages API (rawPredict), the rest Gemini's. Each operation goes to the members of the
// model's family; an operation the family lacks (embeddings on Claude) is not served by
// the channel for that model, so the core never picks it.

export type ModelFamily = "anthropic" | "google";

/** Claude models are Anthropic's publisher models on Vertex; everything else is Google's. */
export function modelFamily(upstreamModel: string): ModelFamily {
  return upstreamModel.startsWith("claude-") ? "anthropic" : "google";
}

/** The model a call names, as the client wrote it (every operation Vertex serves names one). */
function callModel(call: unknown): string | undefined {
  const named = call as { model?: unknown; chat?: { model?: unknown }; relay?: { body?: { model?: unknown } } };
  const model = named.model ?? named.chat?.model ?? named.relay?.body?.model;
  return typeof model === "string" ? model : undefined;
}

function familyMember<O extends Operation>(operation: O, families: Record<ModelFamily, ProviderOperations>): OperationMember<O> | undefined {
  const memberOf = (family: ModelFamily) => families[family][operation] as OperationMember<O> | undefined;
  if (!memberOf("anthropic") && !memberOf("google")) return undefined;
  const upstreamModel = (call: unknown, channel: Channel) => {
    const model = callModel(call);
    return model === undefined ? undefined : (channel.modelMap[model] ?? model);
  };
  return {
    serves(call, channel) {
      const model = upstreamModel(call, channel);
      const members = model === undefined ? [memberOf("anthropic"), memberOf("google")] : [memberOf(modelFamily(model))];
      return members.some((member) => member !== undefined && (member.serves?.(call, channel) ?? true));
    },
    attempt(call, context, hooks) {
      const member = memberOf(modelFamily(context.upstreamModel));
      if (!member) throw new GatewayError("invalid_request", `Vertex does not serve ${operation} for ${context.upstreamModel}.`, { code: "unsupported_operation" });
      return member.attempt(call, context, hooks);
    },
  };
}

/** The operations of both families, each routed by the call's model. */
export function byModelFamily(families: Record<ModelFamily, ProviderOperations>): ProviderOperations {
  const operations: Record<string, unknown> = {};
  for (const operation of OPERATIONS) {
    const member = familyMember(operation, families);
    if (member) operations[operation] = member;
  }
  return operations as ProviderOperations;
}
