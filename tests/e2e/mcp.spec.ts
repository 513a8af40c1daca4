import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startGithubLikeServer, type TestMcpServer } from "../helpers/mcp-test-servers";
import { ADMIN, expect, test } from "./fixtures";

// The MCP page (issue 35): add a server with a credential header, test it and see its tools,
// grant two of them to a token, and see the server's calls once an agent used one.
// Screenshots land in tests/e2e/screenshots.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const BEARER = "ghp_console_e2e_0123456789";

let upstream: TestMcpServer;
test.beforeAll(async () => {
  upstream = await startGithubLikeServer(BEARER);
});
test.afterAll(async () => {
  await upstream?.close();
});

test("an admin adds an MCP server, tests it, grants two tools to a token, and sees its calls", async ({ console, page, deployment }) => {
  const { gateway } = deployment;
  gateway.secrets.add(BEARER);
  const token = await gateway.admin("POST", "/api/admin/tokens", { name: "mcp-agent" });
  gateway.secrets.add(token.body.key);

  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/mcp");
  await page.getByLabel("Name", { exact: true }).fill("github");
  await page.getByLabel("URL", { exact: true }).fill(upstream.url);
  await page.getByLabel("Header name").fill("Authorization");
  await page.getByLabel("Header value").fill(`Bearer ${BEARER}`);
  await page.getByRole("button", { name: "Add server" }).click();
  const row = page.getByTestId("mcp-server-row").filter({ hasText: "github" });
  await expect(row).toContainText("Authorization");
  await expect(page.locator("body")).not.toContainText(BEARER);

  await row.getByRole("button", { name: "Test" }).click();
  const tools = row.getByTestId("mcp-tools");
  await expect(tools).toContainText("Initialized and listed 2 tools");
  await expect(tools).toContainText("Echoes its text");
  await tools.getByLabel("Token").selectOption({ label: `mcp-agent (${token.body.keyPrefix}…)` });
  await tools.getByLabel("Grant echo").check();
  await tools.getByLabel("Grant add").check();
  await tools.getByRole("button", { name: "Grant 2 tools" }).click();
  await expect(tools).toContainText("Saved");
  const saved = await gateway.admin("GET", `/api/admin/tokens/${token.body.id}`);
  expect(saved.body.mcp).toEqual([{ server: "github", tools: ["echo", "add"] }]);

  // An agent uses the grant; the page counts the call.
  const client = new Client({ name: "e2e-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token.body.key}` } } }));
  expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["github__add", "github__echo"]);
  await client.callTool({ name: "github__add", arguments: { a: 20, b: 22 } });
  await client.close();
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("mcp-server-row").filter({ hasText: "github" }).getByTestId("mcp-server-calls")).toHaveText("1 calls", { timeout: 1000 });
  }).toPass({ timeout: 10_000 });

  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    await page.reload();
    const current = page.getByTestId("mcp-server-row").filter({ hasText: "github" });
    await current.getByRole("button", { name: "Test" }).click();
    await expect(current.getByTestId("mcp-tools")).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `mcp-${viewport.width}.png`), fullPage: true });
    const width = await page.evaluate(() => document.scrollingElement!.scrollWidth - document.documentElement.clientWidth);
    expect(width, "no sideways scrolling").toBeLessThanOrEqual(0);
  }
});
