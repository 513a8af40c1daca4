import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import { ADMIN, expect, test } from "./fixtures";

// The Dashboard's date range lives in its URL: a preset or two dates pick what every
// chart and table covers, and the titles say which span and grain they show.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

test.describe("dashboard date range", () => {
  test.beforeAll(async ({ deployment }) => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const token = await deployment.gateway.admin("POST", "/api/admin/tokens", { name: "Dashboard range" });
    expect(token.status).toBe(201);
    const client = new OpenAI({ apiKey: token.body.key, baseURL: `${deployment.gateway.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "for the dashboard" }] });
  });

  test("picking 7 d, 90 d and a custom range changes the URL and what the page covers", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const picker = page.getByRole("navigation", { name: "Date range" });
    await expect(picker.getByRole("link", { name: "Last 24 hours" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("heading", { name: "Requests and errors per hour" })).toBeVisible();

    await picker.getByRole("link", { name: "Last 7 days" }).click();
    await expect(page).toHaveURL(/\/console\?range=7d$/);
    await expect(picker.getByRole("link", { name: "Last 7 days" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByText(/^Last 7 days, all traffic\./)).toBeVisible();
    await expect(page.getByRole("heading", { name: "Requests and errors per hour" })).toBeVisible();
    await expect(page.getByTestId("models-known")).toContainText("gpt-test");

    // Past a week the timeline is by the day, and the daily chart covers the whole range.
    await picker.getByRole("link", { name: "Last 90 days" }).click();
    await expect(page).toHaveURL(/\/console\?range=90d$/);
    await expect(page.getByRole("heading", { name: "Requests and errors per day" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Cost per day, last 90 days" })).toBeVisible();

    const today = new Date().toISOString().slice(0, 10);
    const weekAgo = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
    await picker.getByRole("button", { name: "Custom" }).click();
    const custom = page.getByRole("form", { name: "Custom date range" });
    await custom.getByLabel("From").fill(weekAgo);
    await custom.getByLabel("To (UTC, included)").fill(today);
    await custom.getByRole("button", { name: "Show" }).click();
    await expect(page).toHaveURL(new RegExp(`/console\\?from=${weekAgo}&to=${today}$`));
    await expect(page.getByText(`${weekAgo} to ${today} (UTC), all traffic.`, { exact: false })).toBeVisible();
    await expect(picker.getByRole("button", { name: "Custom" })).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByTestId("usage-by-token")).toContainText("Dashboard range");

    // A range the page cannot read falls back to the last 24 hours and says so.
    await console.open(`/console?from=${today}&to=${weekAgo}`);
    await expect(page.getByRole("alert").filter({ hasText: "end comes before its start" })).toBeVisible();
    await expect(picker.getByRole("link", { name: "Last 24 hours" })).toHaveAttribute("aria-current", "page");
  });

  for (const viewport of VIEWPORTS) {
    test(`the picker fits at ${viewport.width}px`, async ({ console, page }) => {
      await page.setViewportSize(viewport);
      await console.signIn(ADMIN.email, ADMIN.password);
      await console.open("/console?range=7d");
      await page.getByRole("navigation", { name: "Date range" }).getByRole("button", { name: "Custom" }).click();
      await expect(page.getByRole("form", { name: "Custom date range" })).toBeVisible();
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: path.join(SHOTS, `dashboard-range-${viewport.width}.png`), fullPage: true });
      // Nothing wider than the window: the page never scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    });
  }
});
