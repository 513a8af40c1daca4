import { z } from "zod";
import type { ConsoleSession } from "@/lib/auth/console-session";
import type { Runtime } from "@/lib/runtime";

export const PAGE_SIZE = 50;

export const logFilterSchema = z.object({
  token: z.string().trim().optional().catch(undefined),
  model: z.string().trim().optional().catch(undefined),
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

/** Newest-first usage log rows visible to the user (admins see all), filtered and paged. */
export async function queryLogs(runtime: Runtime, user: ConsoleSession, filter: LogFilter) {
  await runtime.logs.flush();
  const from = validDate(filter.from);
  const to = validDate(filter.to);
  const where = {
    ...(user.role === "admin" ? {} : { userId: user.userId }),
    ...(filter.token ? { tokenId: filter.token } : {}),
    ...(filter.model ? { model: filter.model } : {}),
    ...(filter.status ? { status: STATUS_RANGE[filter.status] } : {}),
    ...(from || to ? { createdAt: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } } : {}),
  };
  const [rows, total] = await Promise.all([
    runtime.database.requestLog.findMany({ where, orderBy: { createdAt: "desc" }, skip: (filter.page - 1) * PAGE_SIZE, take: PAGE_SIZE }),
    runtime.database.requestLog.count({ where }),
  ]);
  return { rows, total, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

export async function findLog(runtime: Runtime, user: ConsoleSession, id: string) {
  await runtime.logs.flush();
  return runtime.database.requestLog.findFirst({ where: { id, ...(user.role === "admin" ? {} : { userId: user.userId }) } });
}
