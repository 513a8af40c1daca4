import { headers } from "next/headers";
import { PageHeader } from "@/app/_components/ui";
import { cachedInputShare } from "@/lib/console/cached-share";
import { requireUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";
import { compileWindows } from "@/lib/limits/limit-windows";
import { listTokens } from "@/lib/tokens/token-service";
import { TokenManager } from "./token-manager";
import { naturalOrder } from "@/lib/console/natural-order";

export const dynamic = "force-dynamic";

export default async function TokensPage() {
  const user = await requireUser("/console/tokens");
  const runtime = await getRuntime();
  const tokens = await listTokens(runtime, user.role === "admin" ? { kind: "all" } : { kind: "user", userId: user.userId });
  const models = [...runtime.channels.models().keys()].sort(naturalOrder);
  // A new token may belong to one of the caller's teams (a team token is created by a member).
  const teams = await runtime.database.teamMember
    .findMany({ where: { userId: user.userId }, select: { team: { select: { id: true, name: true } } } })
    .then((rows) => rows.map((row) => row.team));
  const cachedShares = Object.fromEntries(await cachedInputShare(runtime, "token"));
  // Each limit window's use, for the bars of the edit form.
  const windowUse = Object.fromEntries(
    await Promise.all(
      tokens
        .filter((token) => token.limits.length > 0)
        .map(async (token) => [token.id, await runtime.limits.windowUsage({ kind: "token", id: token.id }, { windows: compileWindows(token.limits) })] as const),
    ),
  );
  const headerList = await headers();
  const host = headerList.get("x-forwarded-host") ?? headerList.get("host") ?? "localhost:3000";
  const protocol = headerList.get("x-forwarded-proto") ?? "http";
  return (
    <>
      <PageHeader title="Tokens" description={user.role === "admin" ? "Every API key on this deployment." : "Your API keys. Each key is shown once, when you create it."} />
      <TokenManager
        tokens={tokens}
        cachedShares={cachedShares}
        models={models}
        baseUrl={`${protocol}://${host}`}
        now={Date.now()}
        windowUse={windowUse}
        teams={teams.map((team) => ({ id: team.id, name: team.name }))}
      />
    </>
  );
}
