-- The audit log: every admin change and sign-in, newest first by (at, id) (issue 34).
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actorKind" TEXT NOT NULL,
    "actorId" TEXT NOT NULL,
    "actorEmail" TEXT,
    "action" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "targetName" TEXT,
    "changes" JSONB NOT NULL DEFAULT '{}',
    "ip" TEXT
);
CREATE INDEX "AuditEvent_at_id_idx" ON "AuditEvent"("at", "id");
CREATE INDEX "AuditEvent_actorId_at_id_idx" ON "AuditEvent"("actorId", "at", "id");
CREATE INDEX "AuditEvent_targetKind_targetId_at_id_idx" ON "AuditEvent"("targetKind", "targetId", "at", "id");
CREATE INDEX "AuditEvent_action_at_id_idx" ON "AuditEvent"("action", "at", "id");
