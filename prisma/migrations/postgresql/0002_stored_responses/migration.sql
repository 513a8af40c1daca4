-- Responses API answers kept for previous_response_id and GET/DELETE /v1/responses/{id}.
CREATE TABLE "StoredResponse" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "owner" TEXT NOT NULL,
    "native" BOOLEAN NOT NULL DEFAULT false,
    "channelId" TEXT,
    "model" TEXT NOT NULL,
    "conversation" JSONB,
    "input" JSONB,
    "response" JSONB
);
CREATE INDEX "StoredResponse_owner_createdAt_idx" ON "StoredResponse"("owner", "createdAt");
