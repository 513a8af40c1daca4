-- Initial schema. Column types follow what Prisma expects for SQLite
-- (DATETIME, BOOLEAN, BIGINT, JSONB) so the driver adapter maps values correctly.

CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "passwordHash" TEXT,
    "role" TEXT NOT NULL DEFAULT 'user',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

CREATE TABLE "Token" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "keyPrefix" TEXT NOT NULL,
    "userId" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "expiresAt" DATETIME,
    "models" JSONB NOT NULL DEFAULT '[]',
    "quotaTokens" BIGINT,
    "usedTokens" BIGINT NOT NULL DEFAULT 0,
    "rpm" INTEGER,
    "lastUsedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
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
    "lastError" TEXT,
    "lastLatencyMs" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

CREATE TABLE "RequestLog" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
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
    "errorMessage" TEXT,
    "warnings" JSONB
);
CREATE INDEX "RequestLog_createdAt_idx" ON "RequestLog"("createdAt");
CREATE INDEX "RequestLog_tokenId_createdAt_idx" ON "RequestLog"("tokenId", "createdAt");

-- A fresh database starts with the built-in deterministic mock model, so the quick
-- start works with no upstream account.
INSERT INTO "Channel" ("id", "name", "type", "models", "modelMap", "priority", "weight", "enabled", "createdAt", "updatedAt")
VALUES ('builtin-mock', 'Built-in mock', 'mock', '["mock-chat"]', '{}', 0, 1, true,
        strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
