-- The whole schema for PostgreSQL, matching prisma/schema.prisma (see
-- tests/integration/postgres-database.test.ts, which exercises every model).

CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT,
    "role" TEXT NOT NULL DEFAULT 'user',
    "models" JSONB NOT NULL DEFAULT '[]',
    "rpm" INTEGER,
    "tpm" INTEGER,
    "quotaTokens" BIGINT,
    "budgetUsd" DOUBLE PRECISION,
    "quotaPeriod" TEXT NOT NULL DEFAULT 'none',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL
);
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

CREATE TABLE "Token" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "keyPrefix" TEXT NOT NULL,
    "userId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "expiresAt" TIMESTAMP(3),
    "models" JSONB NOT NULL DEFAULT '[]',
    "quotaTokens" BIGINT,
    "usedTokens" BIGINT NOT NULL DEFAULT 0,
    "rpm" INTEGER,
    "tpm" INTEGER,
    "budgetUsd" DOUBLE PRECISION,
    "usedUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "quotaPeriod" TEXT NOT NULL DEFAULT 'none',
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "Token_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "Token_keyHash_key" ON "Token"("keyHash");
CREATE INDEX "Token_userId_idx" ON "Token"("userId");

CREATE TABLE "Channel" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "baseUrl" TEXT,
    "apiKeyEncrypted" TEXT,
    "models" JSONB NOT NULL DEFAULT '[]',
    "modelMap" JSONB NOT NULL DEFAULT '{}',
    "priority" INTEGER NOT NULL DEFAULT 0,
    "weight" INTEGER NOT NULL DEFAULT 1,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "capabilities" JSONB NOT NULL DEFAULT '[]',
    "prices" JSONB NOT NULL DEFAULT '{}',
    "timeouts" JSONB NOT NULL DEFAULT '{}',
    "autoDisabledReason" TEXT,
    "autoDisabledAt" TIMESTAMP(3),
    "lastError" TEXT,
    "lastLatencyMs" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL
);

CREATE TABLE "RequestLog" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endpoint" TEXT NOT NULL,
    "clientFormat" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "tokenId" TEXT,
    "userId" TEXT,
    "channelId" TEXT,
    "model" TEXT,
    "upstreamModel" TEXT,
    "status" INTEGER NOT NULL,
    "stream" BOOLEAN NOT NULL DEFAULT false,
    "promptTokens" INTEGER NOT NULL DEFAULT 0,
    "completionTokens" INTEGER NOT NULL DEFAULT 0,
    "cachedTokens" INTEGER NOT NULL DEFAULT 0,
    "reasoningTokens" INTEGER NOT NULL DEFAULT 0,
    "usageEstimated" BOOLEAN NOT NULL DEFAULT false,
    "latencyMs" INTEGER NOT NULL,
    "firstTokenMs" INTEGER,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "errorMessage" TEXT,
    "warnings" JSONB,
    "attempts" JSONB
);
CREATE INDEX "RequestLog_createdAt_idx" ON "RequestLog"("createdAt");
CREATE INDEX "RequestLog_tokenId_createdAt_idx" ON "RequestLog"("tokenId", "createdAt");
CREATE INDEX "RequestLog_userId_createdAt_idx" ON "RequestLog"("userId", "createdAt");

CREATE TABLE "Setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL
);

-- The built-in deterministic mock model, as on SQLite.
INSERT INTO "Channel" ("id", "name", "type", "models", "modelMap", "priority", "weight", "enabled", "createdAt", "updatedAt")
VALUES ('builtin-mock', 'Built-in mock', 'mock', '["mock-chat"]', '{}', 0, 1, true, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP);
