-- Upstream key pools: the keys after the first, each encrypted, and the ones the upstream refused.
ALTER TABLE "Channel" ADD COLUMN "apiKeysEncrypted" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "Channel" ADD COLUMN "disabledKeys" JSONB NOT NULL DEFAULT '{}';
-- Session affinity: a hash of the client's session on each log row.
ALTER TABLE "RequestLog" ADD COLUMN "sessionHash" TEXT;
