import type { Database } from "@/lib/db/client";
import type { QuotaSubject } from "@/lib/usage/request-log-store";
import type { SubjectName } from "./budget-alerts";

/** What an alert calls whose budget it is: a token's name, a user's email, a team's name; a member cap is the member's. */
export function subjectNames(database: Database): SubjectName {
  return async (subject: QuotaSubject) => {
    switch (subject.kind) {
      case "token": {
        const token = await database.token.findUnique({ where: { id: subject.id }, select: { name: true } });
        return { kind: "token", name: token?.name ?? subject.id };
      }
      case "user": {
        const user = await database.user.findUnique({ where: { id: subject.id }, select: { email: true } });
        return { kind: "user", name: user?.email ?? subject.id };
      }
      case "team": {
        const team = await database.team.findUnique({ where: { id: subject.id }, select: { name: true } });
        return { kind: "team", name: team?.name ?? subject.id };
      }
      case "member": {
        const [teamId = "", userId = ""] = subject.id.split(":");
        const [team, user] = await Promise.all([
          database.team.findUnique({ where: { id: teamId }, select: { name: true } }),
          database.user.findUnique({ where: { id: userId }, select: { email: true } }),
        ]);
        return { kind: "user", name: `${user?.email ?? userId} in ${team?.name ?? teamId}` };
      }
      case "end-user":
        return { kind: "end_user", name: subject.label ?? subject.id };
    }
  };
}
