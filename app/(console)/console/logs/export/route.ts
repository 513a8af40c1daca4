import { parseLogQuery } from "@/lib/console/log-query";
import { logsCsv } from "@/lib/console/logs-csv";
import { currentUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/**
 * GET /console/logs/export?…: every row the Logs page's filter matches (its cursor aside) as
 * CSV, newest first, streamed a keyset batch at a time, with no cap on the number of rows.
 */
export async function GET(request: Request) {
  const user = await currentUser();
  if (!user) return new Response("Sign in first.\n", { status: 401, headers: { "content-type": "text/plain" } });
  const parsed = parseLogQuery(new URL(request.url).searchParams, true);
  const body = await logsCsv(await getRuntime(), user, parsed.ok ? parsed.query.filter : {});
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, "-");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="gateway-logs-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
