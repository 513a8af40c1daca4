import { isGatewayError } from "@/lib/canonical/gateway-error";
import type { OperationMember } from "@/lib/providers/provider";

// Vertex refuses a request whose `anthropic-beta` header names a beta it does not serve
// (400 "Unexpected value(s) `x`, `y` for the `anthropic-beta` header"), where Anthropic's
// own API ignores or serves it. Clients such as Claude Code, which think they talk to
// Anthropic, send those: the request is sent once more without the refused values, and
// the log row says which were dropped. Vertex's own answer is the list, so none is kept here.

const REFUSED = /Unexpected value\(s\) (.+?) for the `anthropic-beta` header/;

/** The betas a Vertex 400 names as refused, or undefined for any other error. */
export function refusedBetas(error: unknown): string[] | undefined {
  if (!isGatewayError(error) || error.upstreamStatus !== 400) return undefined;
  const listed = REFUSED.exec(error.message)?.[1];
  const names = listed ? [...listed.matchAll(/`([^`]+)`/g)].map((match) => match[1]!) : [];
  return names.length > 0 ? names : undefined;
}

/** Chat whose relayed Anthropic request is retried once without the betas Vertex refused. */
export function withoutRefusedBetas(member: OperationMember<"chat">): OperationMember<"chat"> {
  return {
    ...member,
    async attempt(call, context, hooks) {
      try {
        return await member.attempt(call, context, hooks);
      } catch (error) {
        const refused = refusedBetas(error);
        const clientHeaders = call.relay?.clientHeaders;
        const sent = clientHeaders?.get("anthropic-beta");
        if (!refused || !call.relay || !clientHeaders || !sent) throw error;
        const betas = sent
          .split(",")
          .map((beta) => beta.trim())
          .filter(Boolean);
        const kept = betas.filter((beta) => !refused.includes(beta));
        if (kept.length === betas.length) throw error;
        context.warnings.push(`anthropic-beta ${refused.join(", ")} dropped: Vertex does not serve ${refused.length > 1 ? "them" : "it"}`);
        const headers = { get: (name: string) => (name.toLowerCase() === "anthropic-beta" ? kept.join(",") || null : clientHeaders.get(name)) };
        return member.attempt({ ...call, relay: { ...call.relay, clientHeaders: headers } }, context, hooks);
      }
    },
  };
}
