import { hash } from "node:crypto";
import type { Payer, TokenRecord } from "@/lib/auth/token-record";
import { windowsOnly } from "@/lib/auth/token-record";
import type { HeaderReader } from "@/lib/canonical/api-types";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Database } from "@/lib/db/client";
import type { Spend } from "@/lib/limits/spend-limiter";
import { logger } from "@/lib/logger";

/** The header an app names its end user in when its body cannot (any operation). */
export const END_USER_HEADER = "x-end-user-id";
const MAX_END_USER_LENGTH = 256;

/** The parts of an operation's input an end user is read from: the client's body, or a chat's canonical `user`. */
interface EndUserSources {
  body?: unknown;
  relay?: { body?: unknown };
  chat?: { user?: string };
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : undefined;
}

/**
 * The person behind an app's token: the first present of body `user`, body
 * `safety_identifier`, body `metadata.user_id`, header `x-end-user-id` (undefined: none named).
 */
export function endUserOf(call: object, headers: HeaderReader | undefined): string | undefined {
  const sources = call as EndUserSources;
  const raw = sources.relay?.body ?? sources.body;
  const body = raw && typeof raw === "object" ? (raw as Record<string, unknown>) : {};
  const metadata = body.metadata && typeof body.metadata === "object" ? (body.metadata as Record<string, unknown>) : {};
  return text(body.user) ?? text(sources.chat?.user) ?? text(body.safety_identifier) ?? text(metadata.user_id) ?? text(headers?.get(END_USER_HEADER));
}

/** An end user whose windows apply: an id too long to be one is refused. */
export function checkedEndUser(endUser: string): string {
  if (endUser.length > MAX_END_USER_LENGTH) {
    throw new GatewayError(
      "invalid_request",
      `The end user's id (user, safety_identifier, metadata.user_id or ${END_USER_HEADER}) must be at most ${MAX_END_USER_LENGTH} characters.`,
      {
        code: "invalid_end_user",
        param: "user",
      },
    );
  }
  return endUser;
}

/** The end user as logged and rolled up: as named, or, past 256 characters, its start and a digest (distinct ids stay distinct). */
export function loggedEndUser(endUser: string): string {
  if (endUser.length <= MAX_END_USER_LENGTH) return endUser;
  return `${endUser.slice(0, MAX_END_USER_LENGTH - 23)}~${hash("sha256", endUser, "base64url").slice(0, 22)}`;
}

/** The counters' name for an end user: a digest, so any id makes a short key. */
export function endUserSubjectId(scope: string, endUser: string): string {
  return `${scope}:${hash("sha256", endUser, "base64url").slice(0, 22)}`;
}

/** The token's payers with the end user's windows after them: created on first sight, reserved like the rest. */
export function payersWithEndUser(token: TokenRecord, endUser: string | undefined): readonly Payer[] {
  if (!endUser || !token.endUserWindows?.length) return token.payers;
  return [
    ...token.payers,
    ...token.endUserWindows.map(
      ({ scope, windows }): Payer => ({ subject: { kind: "end-user", id: endUserSubjectId(scope, endUser), label: endUser }, limits: windowsOnly(windows) }),
    ),
  ];
}

/**
 * Each end user's totals per token, for the admin API: added after each call a token with
 * end-user windows served (the windows themselves live in the shared state).
 */
export class EndUserLedger {
  constructor(private readonly database: Database) {}

  record(tokenId: string, endUser: string, spend: Spend): void {
    this.add(tokenId, endUser, spend).catch((error) => logger.error({ err: error }, "end user's usage not recorded"));
  }

  private async add(tokenId: string, endUser: string, spend: Spend): Promise<void> {
    const where = { tokenId, endUser };
    const data = { requests: { increment: 1 }, tokens: { increment: BigInt(Math.round(spend.tokens)) }, usd: { increment: spend.usd }, lastSeenAt: new Date() };
    if ((await this.database.endUser.updateMany({ where, data })).count > 0) return;
    try {
      await this.database.endUser.create({ data: { ...where, requests: 1, tokens: BigInt(Math.round(spend.tokens)), usd: spend.usd } });
    } catch {
      // Another call created the row first: add to it.
      await this.database.endUser.updateMany({ where, data });
    }
  }
}
