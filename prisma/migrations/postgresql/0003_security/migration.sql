-- Sessions end when an account is disabled, deleted or its sessionVersion moves on.
ALTER TABLE "User" ADD COLUMN "disabled" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "User" ADD COLUMN "sessionVersion" INTEGER NOT NULL DEFAULT 0;
-- Keyed token hashes are found by a short prefix of the key, then compared in constant time.
-- Rows from before have no lookupKey: their keyHash is a plain SHA-256, upgraded on first use.
ALTER TABLE "Token" ADD COLUMN "lookupKey" TEXT;
CREATE INDEX "Token_lookupKey_idx" ON "Token"("lookupKey");
