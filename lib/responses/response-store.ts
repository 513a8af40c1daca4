import type { Database } from "@/lib/db/client";
import type { QuotaSubject } from "@/lib/usage/request-log-store";

// Responses API answers kept for `previous_response_id` and GET/DELETE /v1/responses/{id},
// scoped to the token (or console user) that created them: another caller's id is unknown.

export interface StoredResponseRecord {
  id: string;
  native: boolean;
  channelId: string | null;
  model: string;
  /** The conversation up to and including this answer, as input items (translated answers). */
  conversation: unknown[] | null;
  input: unknown[] | null;
  response: Record<string, unknown> | null;
}

export function ownerOf(subject: QuotaSubject): string {
  return `${subject.kind}:${subject.id}`;
}

export class ResponseStore {
  constructor(
    private readonly database: Database,
    /** RESPONSE_RETENTION: an answer older than this is gone, swept or not yet (0: kept forever). */
    private readonly retentionMs = 0,
    private readonly now: () => number = Date.now,
  ) {}

  /** Rows created before this moment have expired. */
  private get kept() {
    return this.retentionMs > 0 ? { createdAt: { gte: new Date(this.now() - this.retentionMs) } } : {};
  }

  async find(owner: string, id: string): Promise<StoredResponseRecord | null> {
    const row = await this.database.storedResponse.findFirst({ where: { id, owner, ...this.kept } });
    if (!row) return null;
    return {
      id: row.id,
      native: row.native,
      channelId: row.channelId,
      model: row.model,
      conversation: Array.isArray(row.conversation) ? row.conversation : null,
      input: Array.isArray(row.input) ? row.input : null,
      response: row.response && typeof row.response === "object" ? (row.response as Record<string, unknown>) : null,
    };
  }

  async save(owner: string, record: StoredResponseRecord): Promise<void> {
    const data = {
      owner,
      native: record.native,
      channelId: record.channelId,
      model: record.model,
      conversation: (record.conversation ?? undefined) as object | undefined,
      input: (record.input ?? undefined) as object | undefined,
      response: (record.response ?? undefined) as object | undefined,
    };
    await this.database.storedResponse.upsert({ where: { id: record.id }, create: { id: record.id, createdAt: new Date(this.now()), ...data }, update: data });
  }

  /**
   * Output items of the owner's recent answers by item id, for `item_reference` inputs
   * (the AI SDK refers to earlier output items instead of resending them).
   */
  async recentItems(owner: string, limit = 100): Promise<Map<string, unknown>> {
    const rows = await this.database.storedResponse.findMany({
      where: { owner, ...this.kept },
      orderBy: { createdAt: "desc" },
      take: limit,
      select: { response: true },
    });
    const items = new Map<string, unknown>();
    for (const row of rows) {
      const output = (row.response as { output?: unknown } | null)?.output;
      for (const item of Array.isArray(output) ? output : []) {
        const id = (item as { id?: unknown }).id;
        if (typeof id === "string" && !items.has(id)) items.set(id, item);
      }
    }
    return items;
  }

  /** True when it existed (and was the caller's). */
  async delete(owner: string, id: string): Promise<boolean> {
    const { count } = await this.database.storedResponse.deleteMany({ where: { id, owner, ...this.kept } });
    return count > 0;
  }

  /** Retention: deletes up to `limit` answers created before `before`; returns how many. */
  async sweepBefore(before: Date, limit: number): Promise<number> {
    const rows = await this.database.storedResponse.findMany({ where: { createdAt: { lt: before } }, orderBy: { createdAt: "asc" }, take: limit, select: { id: true } });
    if (rows.length === 0) return 0;
    const { count } = await this.database.storedResponse.deleteMany({ where: { id: { in: rows.map((row) => row.id) }, createdAt: { lt: before } } });
    return count;
  }

  async count(): Promise<number> {
    return this.database.storedResponse.count();
  }
}
