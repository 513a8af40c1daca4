-- Usage by the hour, written with the log rows (lib/usage/usage-hours.ts).
CREATE TABLE "UsageHour" (
    "hour" TIMESTAMP(3) NOT NULL,
    "tokenId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "statusClass" INTEGER NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "charged" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" BIGINT NOT NULL DEFAULT 0,
    "completionTokens" BIGINT NOT NULL DEFAULT 0,
    "cachedTokens" BIGINT NOT NULL DEFAULT 0,
    "reasoningTokens" BIGINT NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cacheHits" INTEGER NOT NULL DEFAULT 0,
    "cacheSavedUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "latencyMsSum" BIGINT NOT NULL DEFAULT 0,
    "firstTokenCount" INTEGER NOT NULL DEFAULT 0,
    "firstTokenMsSum" BIGINT NOT NULL DEFAULT 0,
    "latency0" INTEGER NOT NULL DEFAULT 0,
    "latency1" INTEGER NOT NULL DEFAULT 0,
    "latency2" INTEGER NOT NULL DEFAULT 0,
    "latency3" INTEGER NOT NULL DEFAULT 0,
    "latency4" INTEGER NOT NULL DEFAULT 0,
    "latency5" INTEGER NOT NULL DEFAULT 0,
    "latency6" INTEGER NOT NULL DEFAULT 0,
    "latency7" INTEGER NOT NULL DEFAULT 0,
    "latency8" INTEGER NOT NULL DEFAULT 0,
    "latency9" INTEGER NOT NULL DEFAULT 0,
    "latency10" INTEGER NOT NULL DEFAULT 0,
    "latency11" INTEGER NOT NULL DEFAULT 0,
    "latency12" INTEGER NOT NULL DEFAULT 0,
    "latency13" INTEGER NOT NULL DEFAULT 0,
    "latency14" INTEGER NOT NULL DEFAULT 0,
    "latency15" INTEGER NOT NULL DEFAULT 0,
    "firstToken0" INTEGER NOT NULL DEFAULT 0,
    "firstToken1" INTEGER NOT NULL DEFAULT 0,
    "firstToken2" INTEGER NOT NULL DEFAULT 0,
    "firstToken3" INTEGER NOT NULL DEFAULT 0,
    "firstToken4" INTEGER NOT NULL DEFAULT 0,
    "firstToken5" INTEGER NOT NULL DEFAULT 0,
    "firstToken6" INTEGER NOT NULL DEFAULT 0,
    "firstToken7" INTEGER NOT NULL DEFAULT 0,
    "firstToken8" INTEGER NOT NULL DEFAULT 0,
    "firstToken9" INTEGER NOT NULL DEFAULT 0,
    "firstToken10" INTEGER NOT NULL DEFAULT 0,
    "firstToken11" INTEGER NOT NULL DEFAULT 0,
    "firstToken12" INTEGER NOT NULL DEFAULT 0,
    "firstToken13" INTEGER NOT NULL DEFAULT 0,
    "firstToken14" INTEGER NOT NULL DEFAULT 0,
    "firstToken15" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "UsageHour_pkey" PRIMARY KEY ("hour", "tokenId", "userId", "model", "channelId", "statusClass")
);

-- The same totals by UTC day, written with the hours: what long ranges read.
CREATE TABLE "UsageDay" (
    "day" TIMESTAMP(3) NOT NULL,
    "tokenId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "statusClass" INTEGER NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "charged" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "promptTokens" BIGINT NOT NULL DEFAULT 0,
    "completionTokens" BIGINT NOT NULL DEFAULT 0,
    "cachedTokens" BIGINT NOT NULL DEFAULT 0,
    "reasoningTokens" BIGINT NOT NULL DEFAULT 0,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cacheHits" INTEGER NOT NULL DEFAULT 0,
    "cacheSavedUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "latencyMsSum" BIGINT NOT NULL DEFAULT 0,
    "firstTokenCount" INTEGER NOT NULL DEFAULT 0,
    "firstTokenMsSum" BIGINT NOT NULL DEFAULT 0,
    "latency0" INTEGER NOT NULL DEFAULT 0,
    "latency1" INTEGER NOT NULL DEFAULT 0,
    "latency2" INTEGER NOT NULL DEFAULT 0,
    "latency3" INTEGER NOT NULL DEFAULT 0,
    "latency4" INTEGER NOT NULL DEFAULT 0,
    "latency5" INTEGER NOT NULL DEFAULT 0,
    "latency6" INTEGER NOT NULL DEFAULT 0,
    "latency7" INTEGER NOT NULL DEFAULT 0,
    "latency8" INTEGER NOT NULL DEFAULT 0,
    "latency9" INTEGER NOT NULL DEFAULT 0,
    "latency10" INTEGER NOT NULL DEFAULT 0,
    "latency11" INTEGER NOT NULL DEFAULT 0,
    "latency12" INTEGER NOT NULL DEFAULT 0,
    "latency13" INTEGER NOT NULL DEFAULT 0,
    "latency14" INTEGER NOT NULL DEFAULT 0,
    "latency15" INTEGER NOT NULL DEFAULT 0,
    "firstToken0" INTEGER NOT NULL DEFAULT 0,
    "firstToken1" INTEGER NOT NULL DEFAULT 0,
    "firstToken2" INTEGER NOT NULL DEFAULT 0,
    "firstToken3" INTEGER NOT NULL DEFAULT 0,
    "firstToken4" INTEGER NOT NULL DEFAULT 0,
    "firstToken5" INTEGER NOT NULL DEFAULT 0,
    "firstToken6" INTEGER NOT NULL DEFAULT 0,
    "firstToken7" INTEGER NOT NULL DEFAULT 0,
    "firstToken8" INTEGER NOT NULL DEFAULT 0,
    "firstToken9" INTEGER NOT NULL DEFAULT 0,
    "firstToken10" INTEGER NOT NULL DEFAULT 0,
    "firstToken11" INTEGER NOT NULL DEFAULT 0,
    "firstToken12" INTEGER NOT NULL DEFAULT 0,
    "firstToken13" INTEGER NOT NULL DEFAULT 0,
    "firstToken14" INTEGER NOT NULL DEFAULT 0,
    "firstToken15" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "UsageDay_pkey" PRIMARY KEY ("day", "tokenId", "userId", "model", "channelId", "statusClass")
);
CREATE INDEX "UsageHour_tokenId_hour_idx" ON "UsageHour"("tokenId", "hour");
CREATE INDEX "UsageHour_userId_hour_idx" ON "UsageHour"("userId", "hour");
CREATE INDEX "UsageDay_tokenId_day_idx" ON "UsageDay"("tokenId", "day");
CREATE INDEX "UsageDay_userId_day_idx" ON "UsageDay"("userId", "day");

-- The Logs page's filters, each on an index that also orders by time.
CREATE INDEX "RequestLog_model_createdAt_idx" ON "RequestLog"("model", "createdAt");
CREATE INDEX "RequestLog_channelId_createdAt_idx" ON "RequestLog"("channelId", "createdAt");
CREATE INDEX "RequestLog_sessionHash_createdAt_idx" ON "RequestLog"("sessionHash", "createdAt");
CREATE INDEX "RequestLog_status_createdAt_idx" ON "RequestLog"("status", "createdAt");

-- What the retention sweep rolled up of deleted rows (per token or user, day and model)
-- becomes hours at each day's start. A user's rollup held their tokens' rows too (since
-- user limits bind every token they own); only the rest, their console sessions, is kept
-- as a user row, so nothing is counted twice.
INSERT INTO "UsageHour" ("hour", "tokenId", "userId", "model", "channelId", "statusClass", "requests", "charged", "promptTokens", "costUsd")
SELECT r."day", r."subjectId", COALESCE(t."userId", ''), r."model", '', 2, r."requests", r."requests", r."tokens", r."usd"
  FROM "UsageRollup" r LEFT JOIN "Token" t ON t."id" = r."subjectId"
 WHERE r."subjectKind" = 'token';
INSERT INTO "UsageHour" ("hour", "tokenId", "userId", "model", "channelId", "statusClass", "requests", "charged", "promptTokens", "costUsd")
SELECT "day", '', "subjectId", "model", '', 2, "requests", "requests", "tokens", "usd" FROM (
  SELECT u."day", u."subjectId", u."model",
         GREATEST(0, u."requests" - COALESCE(SUM(h."requests"), 0)) AS "requests",
         GREATEST(0, u."tokens" - COALESCE(SUM(h."promptTokens"), 0)) AS "tokens",
         GREATEST(0, u."usd" - COALESCE(SUM(h."costUsd"), 0)) AS "usd"
    FROM "UsageRollup" u LEFT JOIN "UsageHour" h ON h."userId" = u."subjectId" AND h."hour" = u."day" AND h."model" = u."model" AND h."tokenId" <> ''
   WHERE u."subjectKind" = 'user'
   GROUP BY u."day", u."subjectId", u."model", u."requests", u."tokens", u."usd") AS rest
 WHERE "requests" > 0 OR "tokens" > 0 OR "usd" > 0;
-- Those hours are days' starts: the daily totals are the same rows.
INSERT INTO "UsageDay" SELECT * FROM "UsageHour";
DROP TABLE "UsageRollup";

-- The rows already in the log are rolled up once, in batches, after start-up: every row
-- older than this moment (rows written from here on are rolled up as they are written).
INSERT INTO "Setting" ("key", "value", "updatedAt")
SELECT 'usageHours.backfill', json_build_object('before', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'after', NULL)::text, now()
 WHERE EXISTS (SELECT 1 FROM "RequestLog");
