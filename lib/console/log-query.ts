import { z } from "zod";
import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";

export const PAGE_SIZE = 50;

export const logFilterSchema = z.object({
  token: z.string().trim().optional().catch(undefined),
  model: z.string().trim().optional().catch(undefined),
  channel: z.string().trim().optional().catch(undefined),
  endpoint: z.string().trim().optional().catch(undefined),
  status: z.enum(["", "success", "error", "client-error", "server-error"]).optional().catch(undefined),
  from: z.string().optional().catch(undefined),
  to: z.string().optional().catch(undefined),
  page: z.coerce.number().int().min(1).catch(1).default(1),
});
export type LogFilter = z.infer<typeof logFilterSchema>;

const STATUS_RANGE: Record<string, { gte?: number; lt?: number }> = {
  success: { lt: 400 },
  error: { gte: 400 },
  "client-error": { gte: 400, lt: 500 },
  "server-error": { gte: 500 },
};

function validDate(value: string | undefined): Date | undefined {
  if (!value) return undefined;
  const date = new Date(value.endsWith("Z") ? value : `${value}Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function logWhere(user: ConsoleSession, filter: LogFilter) {
  const from = validDate(filter.from);
  const to = validDate(filter.to);
  return {
    ...(user.role === "admin" ? {} : { userId: user.userId }),
    ...(filter.token ? { tokenId: filter.token } : {}),
    ...(filter.model ? { model: filter.model } : {}),
    ...(filter.channel ? { channelId: filter.channel } : {}),
    ...(filter.endpoint ? { endpoint: filter.endpoint } : {}),
    ...(filter.status ? { status: STATUS_RANGE[filter.status] } : {}),
    ...(from || to ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } } : {}),
  };
}

/** Newest-first usage log rows visible to the user (admins see all), filtered and paged. */
export async function queryLogs(runtime: Runtime, user: ConsoleSession, filter: LogFilter) {
  await runtime.logs.flush();
  const where = logWhere(user, filter);
  const [rows, total] = await Promise.all([
    runtime.database.requestLog.findMany({ where, orderBy: { createdAt: "desc" }, skip: (filter.page - 1) * PAGE_SIZE, take: PAGE_SIZE }),
    runtime.database.requestLog.count({ where }),
  ]);
  return { rows, total, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

const EXPORT_BATCH = 1000;

/** Every matching row, newest first, a batch at a time (for the CSV export), up to `limit`. */
export async function* iterateLogs(runtime: Runtime, user: ConsoleSession, filter: LogFilter, limit: number) {
  await runtime.logs.flush();
  const where = logWhere(user, filter);
  let cursor: string | undefined;
  let sent = 0;
  while (sent < limit) {
    const rows = await runtime.database.requestLog.findMany({
      where,
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: Math.min(EXPORT_BATCH, limit - sent),
      ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
    });
    if (rows.length === 0) return;
    yield rows;
    sent += rows.length;
    cursor = rows.at(-1)!.id;
  }
}

export async function findLog(runtime: Runtime, user: ConsoleSession, id: string) {
  await runtime.logs.flush();
  return runtime.database.requestLog.findFirst({ where: { id, ...(user.role === "admin" ? {} : { userId: user.userId }) } });
}
