import { randomUUID } from "node:crypto";

/** Anthropic ids look like `msg_…`; foreign ids are kept inside one. */
export function anthropicMessageId(id: string): string {
  if (id.startsWith("msg_")) return id;
  return `msg_${(id || randomUUID()).replace(/[^a-zA-Z0-9_-]/g, "")}`;
}

/** Anthropic tool ids must match ^[a-zA-Z0-9_-]+$; the same mapping applies to results. */
export function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean || `toolu_${randomUUID().replaceAll("-", "")}`;
}
