import type { Database } from "@/lib/db/client";
import { GatewayError } from "@/lib/canonical/gateway-error";

// The audit log: one row per change made through the admin API or the console, and per
// sign-in. `changes` holds each changed field as [before, after]; a create has null befores
// and a delete null afters. Secrets never reach it: their fields read "[redacted]".

export const REDACTED = "[redacted]";

/** Fields whose values are secrets wherever they appear (a channel's keys, a webhook's secret, an MCP server's headers...). */
const SECRET_FIELDS = new Set([
  "apikey",
  "apikeys",
  "key",
  "secret",
  "password",
  "passwordhash",
  "keyhash",
  "headers",
  "clientsecret",
  "privatekey",
  "secretaccesskey",
  "credentials",
]);

export interface AuditActor {
  kind: "admin_key" | "user";
  id: string;
  email?: string | null;
}

export interface AuditTarget {
  kind: string;
  id: string;
  name?: string | null;
}

export type AuditChanges = Record<string, [unknown, unknown]>;

export interface AuditEntry {
  actor: AuditActor;
  action: string;
  target: AuditTarget;
  changes: AuditChanges;
  ip: string | null;
}

const isSecret = (field: string) => SECRET_FIELDS.has(field.toLowerCase());

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A value with every secret field inside it (at any depth) replaced by "[redacted]". */
function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  return Object.fromEntries(Object.entries(value).map(([field, inner]) => [field, isSecret(field) && inner !== null ? REDACTED : redact(inner)]));
}

/** The paths of the secret fields an input sets ("apiKey", "settings.secretAccessKey"). */
function secretPaths(input: unknown, prefix = ""): [string, unknown][] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return [];
  return Object.entries(input).flatMap(([field, value]) =>
    value === undefined ? [] : isSecret(field) ? [[`${prefix}${field}`, value] as [string, unknown]] : secretPaths(value, `${prefix}${field}.`),
  );
}

/**
 * The fields that differ between two views of a record (either may be null: a create or a
 * delete), plus the secret fields an input set (a key rotated shows as changed, never its
 * value). With an input, only the fields it names are compared (a view's health or usage
 * moves on its own); timestamps are left out.
 */
export function diffChanges(before: object | null, after: object | null, input?: object): AuditChanges {
  const changes: AuditChanges = {};
  const old = (before ?? {}) as Record<string, unknown>;
  const next = (after ?? {}) as Record<string, unknown>;
  const fields = input ? Object.keys(input).filter((field) => (input as Record<string, unknown>)[field] !== undefined) : [...Object.keys(old), ...Object.keys(next)];
  for (const field of new Set(fields)) {
    if (field === "updatedAt" || field === "createdAt" || field === "id") continue;
    const from = before ? (old[field] ?? null) : null;
    const to = after ? (next[field] ?? null) : null;
    if (same(from, to) || (input && isSecret(field))) continue;
    changes[field] = isSecret(field) ? [from === null ? null : REDACTED, to === null ? null : REDACTED] : [redact(from), redact(to)];
  }
  for (const [path, value] of secretPaths(input)) changes[path] = [before ? REDACTED : null, value === null ? null : REDACTED];
  return changes;
}

export async function recordAudit(database: Database, entry: AuditEntry): Promise<void> {
  await database.auditEvent.create({
    data: {
      actorKind: entry.actor.kind,
      actorId: entry.actor.id,
      actorEmail: entry.actor.email ?? null,
      action: entry.action,
      targetKind: entry.target.kind,
      targetId: entry.target.id,
      targetName: entry.target.name ?? null,
      changes: entry.changes as object,
      ip: entry.ip,
    },
  });
}

export interface AuditQuery {
  cursor?: string | null;
  limit?: number;
  /** An actor id ("admin_key", or a user's id). */
  actor?: string | null;
  /** "kind:id". */
  target?: string | null;
  action?: string | null;
}

export const AUDIT_PAGE = { default: 50, max: 500 };

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const date = new Date(at ?? "");
  if (!id || Number.isNaN(date.getTime())) throw new GatewayError("invalid_request", "The cursor is not one this API gave.", { param: "cursor" });
  return { at: date, id };
}

const encodeCursor = (at: Date, id: string) => Buffer.from(`${at.toISOString()}|${id}`).toString("base64url");

/** Newest first, a page at a time: `next_cursor` continues after the last row (keyset, so deep pages cost what the first does). */
export async function listAudit(database: Database, query: AuditQuery) {
  const limit = query.limit ?? AUDIT_PAGE.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE.max) {
    throw new GatewayError("invalid_request", `limit must be a whole number from 1 to ${AUDIT_PAGE.max}.`, { param: "limit" });
  }
  let target: { targetKind: string; targetId: string } | undefined;
  if (query.target) {
    const split = query.target.indexOf(":");
    if (split <= 0) throw new GatewayError("invalid_request", "target is kind:id, e.g. channel:cm123.", { param: "target" });
    target = { targetKind: query.target.slice(0, split), targetId: query.target.slice(split + 1) };
  }
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const rows = await database.auditEvent.findMany({
    where: {
      ...(query.actor ? { actorId: query.actor } : {}),
      ...(target ?? {}),
      ...(query.action ? { action: query.action } : {}),
      ...(after ? { OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }] } : {}),
    },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: { kind: row.actorKind, id: row.actorId, ...(row.actorEmail ? { email: row.actorEmail } : {}) },
      action: row.action,
      target: { kind: row.targetKind, id: row.targetId, name: row.targetName },
      changes: row.changes,
      ip: row.ip,
    })),
    next_cursor: rows.length > limit && last ? encodeCursor(last.at, last.id) : null,
  };
}

/** Deletes rows older than `before`, a batch at a time (the retention sweeper's store). */
export async function sweepAuditBefore(database: Database, before: Date, limit: number): Promise<number> {
  const rows = await database.auditEvent.findMany({ where: { at: { lt: before } }, select: { id: true }, take: limit });
  if (rows.length === 0) return 0;
  const deleted = await database.auditEvent.deleteMany({ where: { id: { in: rows.map((row) => row.id) } } });
  return deleted.count;
}
