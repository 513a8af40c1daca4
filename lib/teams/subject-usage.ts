import type { Database } from "@/lib/db/client";
import type { QuotaSubject, RequestLogStore, Usage } from "@/lib/usage/request-log-store";

const NOTHING: Usage = { tokens: 0, usd: 0, requests: 0 };

/**
 * What any quota subject spent since a moment, from the log's rollups: a token or a user
 * directly; a team as the sum of its tokens, a member as the sum of the team tokens they
 * created. An end user has no rollup: a calendar window of theirs whose counter the shared
 * state lost starts again from zero (with Redis it lasts until the window ends).
 */
export function subjectUsageSince(database: Database, logStore: Pick<RequestLogStore, "usageSince" | "usage">) {
  const sumOfTokens = async (where: { teamId: string; userId?: string }, since: Date, models: readonly string[] | null): Promise<Usage> => {
    const tokens = await database.token.findMany({ where, select: { id: true } });
    if (tokens.length === 0) return NOTHING;
    const [total] = await logStore.usage({ from: since, groupBy: [], tokenIds: tokens.map((token) => token.id), ...(models ? { models } : {}) });
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
      case "end-user":
        return Promise.resolve(NOTHING);
    }
  };
}
