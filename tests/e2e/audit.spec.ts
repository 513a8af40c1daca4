import path from "node:path";
import { ADMIN, expect, test } from "./fixtures";

// The Audit log page (issue 34): changes and sign-ins newest first, secrets redacted,
// filters by clicking an action, an actor or a target. Screenshots in tests/e2e/screenshots.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

test("an admin reads who changed what, with keys redacted, and filters by action", async ({ console, page, deployment }) => {
  const { gateway } = deployment;
  const key = "sk-audited-console-key-0123456789";
  gateway.secrets.add(key);
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    type: "openai",
    name: "Audited channel",
    baseUrl: "https://api.example.com/v1",
    apiKey: key,
    models: ["audited-model"],
  });
  expect(channel.status).toBe(201);
  expect((await gateway.admin("PATCH", `/api/admin/channels/${channel.body.id}`, { priority: 3 })).status).toBe(200);

  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/audit");
  const created = page.getByTestId("audit-row").filter({ hasText: "channel.create" }).filter({ hasText: "Audited channel" });
  await expect(created).toContainText("apiKey: — → [redacted]");
  await expect(created).toContainText("Admin API key");
  await expect(page.getByTestId("audit-row").filter({ hasText: "auth.sign_in" }).first()).toContainText(ADMIN.email);
  expect(await page.locator("main").textContent()).not.toContain(key);

  await page.getByTestId("audit-row").filter({ hasText: "channel.update" }).first().getByText("channel.update").click();
  await expect(page).toHaveURL(/action=channel.update/);
  await expect(page.getByTestId("audit-row")).toHaveCount(1);
  await expect(page.getByTestId("audit-row")).toContainText("priority: 0 → 3");

  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    await console.open("/console/audit");
    await expect(page.getByTestId("audit-row").first()).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `audit-${viewport.width}.png`), fullPage: true });
    const width = await page.evaluate(() => document.scrollingElement!.scrollWidth - document.documentElement.clientWidth);
    expect(width, "no sideways scrolling").toBeLessThanOrEqual(0);
  }
});
