import path from "node:path";
import { ADMIN, expect, test } from "./fixtures";

// The Webhooks page (issue 34): add a webhook, see its secret once, send a test event to a
// receiver that cannot be reached and see the failure and the retry in Recent deliveries.
// Screenshots land in tests/e2e/screenshots.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

test("an admin adds a webhook, sees its secret once, and a failed test delivery waiting for its retry", async ({ console, page }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/webhooks");
  await page.getByLabel("URL").fill("https://hooks.example.invalid/gateway");
  await page.getByRole("button", { name: "Add webhook" }).click();
  const secret = page.getByTestId("webhook-secret");
  await expect(secret).toContainText(/whsec_\w{32}/);
  const row = page.getByTestId("webhook-row").filter({ hasText: "hooks.example.invalid" });
  await expect(row).toBeVisible();

  await row.getByRole("button", { name: "Send test" }).click();
  await expect(row.getByRole("alert")).toContainText("Not delivered");
  await page.reload();
  await expect(page.getByTestId("webhook-secret")).toHaveCount(0);
  const delivery = page.getByTestId("delivery-row").filter({ hasText: "webhook.test" });
  await expect(delivery).toContainText("pending");
  await expect(delivery).toContainText("1 attempt");
  await expect(page.getByTestId("webhook-row").filter({ hasText: "hooks.example.invalid" })).toContainText("1 retrying");

  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    await page.reload();
    await expect(page.getByTestId("delivery-row").first()).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `webhooks-${viewport.width}.png`), fullPage: true });
    const width = await page.evaluate(() => document.scrollingElement!.scrollWidth - document.documentElement.clientWidth);
    expect(width, "no sideways scrolling").toBeLessThanOrEqual(0);
  }
});
