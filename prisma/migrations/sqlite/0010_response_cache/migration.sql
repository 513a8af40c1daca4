-- The exact response cache: a token's ceiling, the log's hit or miss, and the store used without Redis.
ALTER TABLE "Token" ADD COLUMN "cacheTtlSeconds" INTEGER;
ALTER TABLE "RequestLog" ADD COLUMN "cacheStatus" TEXT;
ALTER TABLE "RequestLog" ADD COLUMN "cacheSavedUsd" REAL NOT NULL DEFAULT 0;
CREATE TABLE "ResponseCacheEntry" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL
);
CREATE INDEX "ResponseCacheEntry_expiresAt_idx" ON "ResponseCacheEntry"("expiresAt");
