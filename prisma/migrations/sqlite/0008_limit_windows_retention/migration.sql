-- Limit windows on tokens and users: [{window, tokens?, usd?, requests?, models?}].
ALTER TABLE "Token" ADD COLUMN "limits" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "User" ADD COLUMN "limits" JSONB NOT NULL DEFAULT '[]';

-- What swept log rows had spent, so quotas counted from the log survive retention.
CREATE TABLE "UsageRollup" (
    "subjectKind" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "day" DATETIME NOT NULL,
    "model" TEXT NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "tokens" BIGINT NOT NULL DEFAULT 0,
    "usd" REAL NOT NULL DEFAULT 0,
    PRIMARY KEY ("subjectKind", "subjectId", "day", "model")
);

-- One process at a time runs the retention sweep.
CREATE TABLE "Lease" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "holder" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- The sweep deletes stored responses by age.
CREATE INDEX "StoredResponse_createdAt_idx" ON "StoredResponse"("createdAt");
