import { CSV_COLUMNS, csvRow } from "@/lib/console/logs-csv";
import { iterateLogs, logFilterSchema } from "@/lib/console/log-query";
import { currentUser } from "@/lib/console/require-session";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const EXPORT_LIMIT = 100_000;

/** GET /console/logs/export?…: the Logs page's filter as CSV, newest first, streamed. */
export async function GET(request: Request) {
  const user = await currentUser();
  if (!user) return new Response("Sign in first.\n", { status: 401, headers: { "content-type": "text/plain" } });
  const runtime = await getRuntime();
  const filter = logFilterSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const [channels, tokens] = await Promise.all([
    runtime.database.channel.findMany({ select: { id: true, name: true } }),
    runtime.database.token.findMany({ where: user.role === "admin" ? {} : { userId: user.userId }, select: { id: true, name: true } }),
  ]);
  const channelNames = new Map(channels.map((channel) => [channel.id, channel.name]));
  const tokenNames = new Map(tokens.map((token) => [token.id, token.name]));
  const names = {
    channel: (id: string | null) => (id ? (channelNames.get(id) ?? "deleted channel") : ""),
    token: (id: string | null) => (id ? (tokenNames.get(id) ?? "deleted token") : "console session"),
  };
  const encoder = new TextEncoder();
  const batches = iterateLogs(runtime, user, filter, EXPORT_LIMIT);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
    },
    async pull(controller) {
      const next = await batches.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value.map((row) => `${csvRow(row, names)}\r\n`).join("")));
    },
  });
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, "-");
  return new Response(body, {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="gateway-logs-${stamp}.csv"`,
      "cache-control": "no-store",
    },
  });
}
