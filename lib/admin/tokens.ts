import { z } from "zod";
import { displayPrefix, generateTokenKey, hashTokenKey } from "@/lib/auth/token-key";
import { GatewayError } from "@/lib/canonical/gateway-error";
import type { Token as TokenRow } from "@/lib/db/generated/client";
import { jsonResponse } from "@/lib/http/api-types";
import { parseAdminBody } from "./parse-admin-body";
import { withAdmin, type AdminContext } from "./with-admin";

const tokenFields = {
  name: z.string().trim().min(1).max(100),
  models: z.array(z.string().trim().min(1).max(200)).max(1000).optional(),
  expiresAt: z.iso.datetime({ offset: true }).nullable().optional(),
  quotaTokens: z.number().int().min(0).nullable().optional(),
  rpm: z.number().int().min(1).max(1_000_000).nullable().optional(),
  userId: z.string().min(1).nullable().optional(),
};
const createSchema = z.strictObject(tokenFields);
const updateSchema = z.strictObject({ ...tokenFields, enabled: z.boolean() }).partial();

export function tokenJson(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.keyPrefix,
    userId: row.userId,
    enabled: row.enabled,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    models: row.models,
    quotaTokens: row.quotaTokens === null ? null : Number(row.quotaTokens),
    usedTokens: Number(row.usedTokens),
    rpm: row.rpm,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function findToken({ runtime, request }: AdminContext): Promise<TokenRow> {
  const row = await runtime.database.token.findUnique({ where: { id: request.params.id ?? "" } });
  if (!row) throw new GatewayError("not_found", "No token with that id.", { code: "token_not_found" });
  return row;
}

function toDate(value: string | null | undefined): Date | null | undefined {
  return value === undefined ? undefined : value === null ? null : new Date(value);
}

export const listTokens = withAdmin(async ({ runtime }) => {
  const rows = await runtime.database.token.findMany({ orderBy: { createdAt: "desc" } });
  return jsonResponse(200, { data: rows.map(tokenJson) });
});

/** Creates a token; the response is the only time the key is shown. */
export const createToken = withAdmin(async ({ runtime, request, userId }) => {
  const body = await parseAdminBody(request, createSchema);
  const key = generateTokenKey();
  const row = await runtime.database.token.create({
    data: {
      name: body.name,
      keyHash: hashTokenKey(key),
      keyPrefix: displayPrefix(key),
      userId: body.userId ?? userId,
      models: body.models ?? [],
      expiresAt: toDate(body.expiresAt) ?? null,
      quotaTokens: body.quotaTokens == null ? null : BigInt(body.quotaTokens),
      rpm: body.rpm ?? null,
    },
  });
  runtime.tokens.invalidate();
  return jsonResponse(201, { ...tokenJson(row), key });
});

export const getToken = withAdmin(async (context) => jsonResponse(200, tokenJson(await findToken(context))));

export const updateToken = withAdmin(async (context) => {
  const { runtime, request } = context;
  const existing = await findToken(context);
  const body = await parseAdminBody(request, updateSchema);
  const row = await runtime.database.token.update({
    where: { id: existing.id },
    data: {
      name: body.name,
      enabled: body.enabled,
      models: body.models,
      expiresAt: toDate(body.expiresAt),
      quotaTokens: body.quotaTokens === undefined ? undefined : body.quotaTokens === null ? null : BigInt(body.quotaTokens),
      rpm: body.rpm,
      userId: body.userId,
    },
  });
  runtime.tokens.invalidate();
  return jsonResponse(200, tokenJson(row));
});

export const deleteToken = withAdmin(async (context) => {
  const existing = await findToken(context);
  await context.runtime.database.token.delete({ where: { id: existing.id } });
  context.runtime.tokens.invalidate();
  return jsonResponse(200, { id: existing.id, deleted: true });
});
