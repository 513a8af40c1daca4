import http from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

// Loopback MCP servers built with the official SDK, for the MCP gateway's tests: each request
// gets a fresh stateless server, and every tools/call it receives is recorded.

export interface TestMcpServer {
  url: string;
  /** The tool names called, in order, and the Authorization header each came with. */
  calls: { tool: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

type Register = (server: McpServer, record: (tool: string) => void) => void;

async function start(register: Register, requiredBearer?: string): Promise<TestMcpServer> {
  const calls: TestMcpServer["calls"] = [];
  const httpServer = http.createServer(async (request, response) => {
    if (requiredBearer && request.headers.authorization !== `Bearer ${requiredBearer}`) {
      response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    const server = new McpServer({ name: "test-upstream", version: "1.0.0" });
    register(server, (tool) => calls.push({ tool, authorization: request.headers.authorization }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: false });
    response.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () => new Promise((resolve) => httpServer.close(() => resolve())),
  };
}

/** Needs `Authorization: Bearer <bearer>`; tools `echo` (text and structured content) and `add`. */
export function startGithubLikeServer(bearer: string): Promise<TestMcpServer> {
  return start((server, record) => {
    server.registerTool("echo", { description: "Echoes its text", inputSchema: { text: z.string() }, outputSchema: { echoed: z.string() } }, async ({ text }) => {
      record("echo");
      return { content: [{ type: "text", text }], structuredContent: { echoed: text } };
    });
    server.registerTool("add", { description: "Adds two numbers", inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => {
      record("add");
      return { content: [{ type: "text", text: String(a + b) }] };
    });
  }, bearer);
}

/** No auth; `fail` answers isError, `slow` (read-only: agents call it without asking) sends progress notifications before its result. */
export function startToolsServer(): Promise<TestMcpServer> {
  return start((server, record) => {
    server.registerTool("fail", { description: "Always fails", inputSchema: {} }, async () => {
      record("fail");
      return { content: [{ type: "text", text: "the disk is full" }], isError: true };
    });
    server.registerTool("slow", { description: "Reports progress", inputSchema: { steps: z.number() }, annotations: { readOnlyHint: true } }, async ({ steps }, extra) => {
      record("slow");
      const progressToken = extra._meta?.progressToken;
      for (let step = 1; step <= steps; step += 1) {
        if (progressToken !== undefined) {
          await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: step, total: steps, message: `step ${step}` } });
        }
      }
      return { content: [{ type: "text", text: `done in ${steps}` }] };
    });
    server.registerTool("secret_admin", { description: "Must never be called unless granted", inputSchema: {} }, async () => {
      record("secret_admin");
      return { content: [{ type: "text", text: "called" }] };
    });
  });
}
