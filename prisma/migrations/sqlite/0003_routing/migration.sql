-- One call pipeline: per-user session limits, token tpm/budget/period, channel
-- capabilities, prices, timeouts and automatic disabling, cost and attempts per request.
ALTER TABLE "User" ADD COLUMN "models" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "User" ADD COLUMN "rpm" INTEGER;
ALTER TABLE "User" ADD COLUMN "tpm" INTEGER;
ALTER TABLE "User" ADD COLUMN "quotaTokens" BIGINT;
ALTER TABLE "User" ADD COLUMN "budgetUsd" REAL;
ALTER TABLE "User" ADD COLUMN "quotaPeriod" TEXT NOT NULL DEFAULT 'none';

ALTER TABLE "Token" ADD COLUMN "tpm" INTEGER;
ALTER TABLE "Token" ADD COLUMN "budgetUsd" REAL;
ALTER TABLE "Token" ADD COLUMN "usedUsd" REAL NOT NULL DEFAULT 0;
ALTER TABLE "Token" ADD COLUMN "quotaPeriod" TEXT NOT NULL DEFAULT 'none';

ALTER TABLE "Channel" ADD COLUMN "capabilities" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "Channel" ADD COLUMN "prices" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "Channel" ADD COLUMN "timeouts" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "Channel" ADD COLUMN "autoDisabledReason" TEXT;
ALTER TABLE "Channel" ADD COLUMN "autoDisabledAt" DATETIME;

ALTER TABLE "RequestLog" ADD COLUMN "costUsd" REAL NOT NULL DEFAULT 0;
ALTER TABLE "RequestLog" ADD COLUMN "attempts" JSONB;
CREATE INDEX "RequestLog_userId_createdAt_idx" ON "RequestLog"("userId", "createdAt");
