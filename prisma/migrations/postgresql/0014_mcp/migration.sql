-- MCP gateway (issue 35): upstream MCP servers, token grants, and the server and tool of each logged tools/call.
CREATE TABLE "McpServer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "headersEncrypted" TEXT,
    "headerNames" JSONB NOT NULL DEFAULT '[]',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "public" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL
);
CREATE UNIQUE INDEX "McpServer_name_key" ON "McpServer"("name");
ALTER TABLE "Token" ADD COLUMN "mcp" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "RequestLog" ADD COLUMN "mcpServer" TEXT;
ALTER TABLE "RequestLog" ADD COLUMN "mcpTool" TEXT;
