import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import type { Page } from "@playwright/test";
import { ADMIN, expect, test } from "./fixtures";

// Teams in the console (issue 33): a platform admin creates a team and adds members; a
// team admin (no platform rights) sees the team's budget as bars, disables a team token,
// creates one from the token form's team picker, and filters the Dashboard by the team.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];
const LEAD = { email: "lead@example.com", password: "lead-password-123" };
const DEV = { email: "dev@example.com", password: "dev-password-1234" };

/** Screenshots at each width, and the page never scrolls sideways. */
async function shoot(page: Page, name: string) {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    // Charts resize on their ResizeObserver's next callback: the page settles to its width.
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: `${name} at ${viewport.width}px scrolls sideways` })
      .toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(SHOTS, `teams-${name}-${viewport.width}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS[0]!);
}

test.describe("teams", () => {
  let teamId = "";

  test.beforeAll(async ({ deployment }) => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const { gateway } = deployment;
    const lead = await gateway.admin("POST", "/api/admin/users", LEAD);
    expect(lead.status).toBe(201);
    const team = await gateway.admin("POST", "/api/admin/teams", {
      name: "Search",
      limits: [
        { window: "month", usd: 10 },
        { window: "day", requests: 500 },
      ],
    });
    expect(team.status).toBe(201);
    teamId = team.body.id;
    expect((await gateway.admin("POST", `/api/admin/teams/${teamId}/members`, { userId: lead.body.id, role: "admin", limits: [{ window: "month", usd: 2 }] })).status).toBe(201);
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "search-indexer", teamId, userId: lead.body.id });
    expect(token.status).toBe(201);
    const client = new OpenAI({ apiKey: token.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "for the team's usage" }], max_tokens: 1 });
  });

  test("a platform admin creates a team and adds a member with a cap", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Teams" }).click();
    await expect(page).toHaveURL(/\/console\/teams$/);
    const row = page.getByTestId("team-row-Search");
    await expect(row).toBeVisible();
    await expect(row.getByRole("meter", { name: "Search day requests" })).toHaveAttribute("aria-valuenow", "1");
    await expect(row).toContainText("1 request ·");
    await shoot(page, "list");

    const form = page.getByRole("form", { name: "Create team" });
    await form.getByLabel("Name").fill("Ads");
    await form.getByRole("button", { name: "Add window" }).click();
    await form.getByLabel("Window", { exact: true }).fill("month");
    await form.getByLabel("USD").fill("25");
    await form.getByRole("button", { name: "Create team" }).click();
    await expect(page).toHaveURL(/\/console\/teams\/[^/]+$/);
    await expect(page.getByRole("heading", { name: "Ads" })).toBeVisible();
    await expect(page.getByRole("meter", { name: "team month usd" })).toHaveAttribute("aria-valuemax", "25");

    const add = page.getByRole("form", { name: "Add member" });
    await add.getByLabel("Email").fill(LEAD.email);
    await add.getByLabel("Role").selectOption("member");
    await add.getByRole("button", { name: "Add window" }).click();
    await add.getByLabel("Window", { exact: true }).fill("month");
    await add.getByLabel("USD").fill("5");
    await add.getByRole("button", { name: "Add member" }).click();
    const member = page.getByTestId(`member-row-${LEAD.email}`);
    await expect(member).toContainText("member");
    await expect(member.getByRole("meter", { name: `${LEAD.email} month usd` })).toHaveAttribute("aria-valuemax", "5");

    // An unknown email is a clear error, not a failure.
    await add.getByLabel("Email").fill("nobody@example.com");
    await add.getByRole("button", { name: "Add member" }).click();
    await expect(add.getByText("No account with the email nobody@example.com.")).toBeVisible();
  });

  test("a team admin disables a team token, creates one with the team picker, and filters the Dashboard by the team", async ({ console, page }) => {
    await console.signIn(LEAD.email, LEAD.password);
    await console.open("/console/teams");
    const row = page.getByTestId("team-row-Search");
    await expect(row).toContainText("admin");
    await row.getByRole("link", { name: "Search" }).click();
    await expect(page).toHaveURL(new RegExp(`/console/teams/${teamId}$`));
    await expect(page.getByRole("meter", { name: "team month usd" })).toBeVisible();
    await expect(page.getByRole("meter", { name: `${LEAD.email} month usd` })).toBeVisible();
    const token = page.getByTestId("team-token-row-search-indexer");
    await expect(token).toContainText("enabled");
    await shoot(page, "detail");
    await token.getByRole("button", { name: "Disable search-indexer" }).click();
    await expect(token).toContainText("disabled");

    // The token form offers the caller's teams.
    await console.open("/console/tokens");
    await page.getByRole("button", { name: "Create token" }).click();
    const form = page.getByRole("form", { name: "Create token" });
    await form.getByLabel("Name", { exact: true }).fill("search-web");
    await form.getByLabel("Team").selectOption({ label: "Search" });
    await shoot(page, "token-form");
    await form.getByRole("button", { name: "Create", exact: true }).click();
    await expect(page.getByTestId("new-token-key")).toBeVisible();
    await page.getByRole("button", { name: "Done" }).click();
    await console.open(`/console/teams/${teamId}`);
    await expect(page.getByTestId("team-token-row-search-web")).toContainText("enabled");

    await console.open("/console?range=7d");
    const filter = page.getByRole("form", { name: "Team filter" });
    await filter.getByLabel("Team").selectOption({ label: "Search" });
    await filter.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(new RegExp(`/console\\?range=7d&team=${teamId}$`));
    await expect(page.getByText("Last 7 days, team Search.", { exact: false })).toBeVisible();
    await expect(page.getByTestId("usage-by-token")).toContainText("search-indexer");
    await shoot(page, "dashboard");
  });
  test("a team admin reads the logs of a token another member created; that member still sees only their own", async ({ console, page, deployment }) => {
    const { gateway } = deployment;
    const dev = await gateway.admin("POST", "/api/admin/users", DEV);
    expect(dev.status).toBe(201);
    expect((await gateway.admin("POST", `/api/admin/teams/${teamId}/members`, { userId: dev.body.id, role: "member" })).status).toBe(201);
    const token = await gateway.admin("POST", "/api/admin/tokens", { name: "dev-batch", teamId, userId: dev.body.id });
    expect(token.status).toBe(201);
    gateway.secrets.add(token.body.key);
    const client = new OpenAI({ apiKey: token.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "a member's request" }], max_tokens: 1 });

    await console.signIn(LEAD.email, LEAD.password);
    await console.open("/console/logs");
    await page.getByLabel("Token").selectOption({ label: "dev-batch (team Search)" });
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(new RegExp(`token=${token.body.id}`));
    await expect(page.getByText("1 requests made with this team token.")).toBeVisible();
    await expect(page.locator("main tbody tr")).toHaveCount(1);

    await page.context().clearCookies();
    await console.signIn(DEV.email, DEV.password);
    await console.open("/console/logs");
    await expect(page.getByLabel("Token").locator("option", { hasText: "search-indexer" })).toHaveCount(0);
    await console.open(`/console/logs?token=${token.body.id}`);
    await expect(page.locator("main tbody tr")).toHaveCount(1);
  });
});
