import type { Database } from "@/lib/db/client";
import { loggedEndUser } from "./end-users";
import type { QuotaSubject, RequestLogStore, Usage } from "@/lib/usage/request-log-store";

const NOTHING: Usage = { tokens: 0, usd: 0, requests: 0 };

/**
 * What any quota subject spent since a moment, from the log's rollups: a token or a user
 * directly; a team as the sum of its tokens, a member as the sum of the team tokens they
 * created; an end user as the sum of their requests on the token, or the team's tokens, whose
 * windows they are under (the end users' rollups, by the name the client gave).
 */
export function subjectUsageSince(database: Database, logStore: Pick<RequestLogStore, "usageSince" | "usage">) {
  const sumOfTokens = async (where: { teamId: string; userId?: string }, since: Date, models: readonly string[] | null, endUser?: string): Promise<Usage> => {
    const tokens = await database.token.findMany({ where, select: { id: true } });
    if (tokens.length === 0) return NOTHING;
    return sumOf(
      tokens.map((token) => token.id),
      since,
      models,
      endUser,
    );
  };
  const sumOf = async (tokenIds: string[], since: Date, models: readonly string[] | null, endUser?: string): Promise<Usage> => {
    const [total] = await logStore.usage({ from: since, groupBy: [], tokenIds, ...(models ? { models } : {}), ...(endUser !== undefined ? { endUser } : {}) });
    return { tokens: (total?.promptTokens ?? 0) + (total?.completionTokens ?? 0), usd: total?.costUsd ?? 0, requests: total?.charged ?? 0 };
  };
  return (subject: QuotaSubject, since: Date, models: readonly string[] | null = null): Promise<Usage> => {
    switch (subject.kind) {
      case "token":
      case "user":
        return logStore.usageSince(subject, since, models);
      case "team":
        return sumOfTokens({ teamId: subject.id }, since, models);
      case "member": {
        const [teamId = "", userId = ""] = subject.id.split(":");
        return sumOfTokens({ teamId, userId }, since, models);
      }
      case "end-user": {
        // `token:<id>:<digest>` or `team:<id>:<digest>`; the digest cannot be read back, the label is the name.
        const [kind, id = ""] = subject.id.split(":");
        if (subject.label === undefined) return Promise.resolve(NOTHING);
        const endUser = loggedEndUser(subject.label);
        return kind === "team" ? sumOfTokens({ teamId: id }, since, models, endUser) : sumOf([id], since, models, endUser);
      }
    }
  };
}
