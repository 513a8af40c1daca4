import { GatewayError } from "@/lib/canonical/gateway-error";
import { OPERATIONS, type Operation } from "@/lib/providers/operation";
import type { ModelCall, OperationMember, ProviderOperations } from "@/lib/providers/provider";
import type { Channel } from "@/lib/routing/channel";

// A cloud whose channels host models of several wire formats (Bedrock: Claude through
// Anthropic's Messages, the rest through Converse; Vertex: Claude through Anthropic's, the
// rest through Gemini's). Each operation goes to the members of the model's family, told
// from the upstream model name in one place; an operation the family lacks (embeddings on
// Claude) is not served by the channel for that model, so the core never picks it.

/** The operations of every family, each call routed by its model's family. */
export function byModelFamily<Family extends string>(familyOf: (upstreamModel: string) => Family, families: Record<Family, ProviderOperations>): ProviderOperations {
  const operations: Record<string, unknown> = {};
  for (const operation of OPERATIONS) {
    const member = familyMember(operation, familyOf, families);
    if (member) operations[operation] = member;
  }
  return operations as ProviderOperations;
}

function familyMember<O extends Operation, Family extends string>(
  operation: O,
  familyOf: (upstreamModel: string) => Family,
  families: Record<Family, ProviderOperations>,
): OperationMember<O> | undefined {
  const memberOf = (family: Family) => families[family][operation] as OperationMember<O> | undefined;
  if (!(Object.keys(families) as Family[]).some((family) => memberOf(family) !== undefined)) return undefined;
  return {
    serves(call, channel: Channel) {
      const { model } = call as ModelCall;
      const member = memberOf(familyOf(channel.modelMap[model] ?? model));
      return member !== undefined && (member.serves?.(call, channel) ?? true);
    },
    attempt(call, context, hooks) {
      const member = memberOf(familyOf(context.upstreamModel));
      if (!member) throw new GatewayError("invalid_request", `This channel does not serve ${operation} for ${context.upstreamModel}.`, { code: "unsupported_operation" });
      return member.attempt(call, context, hooks);
    },
  };
}
