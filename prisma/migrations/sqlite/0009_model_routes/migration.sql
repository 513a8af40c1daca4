-- Models as routes: fallbacks, a routing strategy and a context window per public model name;
-- the log row names the model that served when a fallback did.
CREATE TABLE "ModelRoute" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "fallbacks" JSONB NOT NULL DEFAULT '[]',
    "strategy" TEXT NOT NULL DEFAULT 'weighted',
    "contextWindow" INTEGER,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
CREATE UNIQUE INDEX "ModelRoute_name_key" ON "ModelRoute"("name");

ALTER TABLE "RequestLog" ADD COLUMN "servedModel" TEXT;
