import fs from "node:fs";
import path from "node:path";
import { ADMIN, expect, test } from "./fixtures";

// Every page at desktop and phone width, kept as CI artifacts (not committed).
const SHOTS = path.join(import.meta.dirname, "screenshots");
const VIEWPORTS = {
  desktop: { width: 1440, height: 900, colorScheme: "light" },
  phone: { width: 390, height: 844, colorScheme: "light" },
  "desktop-dark": { width: 1440, height: 900, colorScheme: "dark" },
} as const;
const PAGES = [
  ["dashboard", "/console"],
  ["dashboard-90d", "/console?range=90d"],
  ["tokens", "/console/tokens"],
  ["channels", "/console/channels"],
  ["models", "/console/models"],
  ["logs", "/console/logs"],
  ["playground", "/console/playground"],
  ["users", "/console/users"],
  ["api-reference", "/console/api"],
  ["account", "/console/account"],
] as const;

test.beforeAll(() => fs.mkdirSync(SHOTS, { recursive: true }));

for (const [viewportName, viewport] of Object.entries(VIEWPORTS)) {
  test(`screenshots at ${viewportName} width`, async ({ console, page }) => {
    // Eleven pages in one test: about a minute on a loaded machine, past the per-test default.
    test.setTimeout(5 * 60_000);
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.emulateMedia({ colorScheme: viewport.colorScheme });
    await console.open("/login");
    await expect(page.getByRole("button", { name: "Sign in" })).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `login-${viewportName}.png`), fullPage: true });
    await console.signIn(ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/console$/);
    for (const [name, route] of PAGES) {
      await console.open(route);
      await expect(page.locator("h1")).toBeVisible();
      await page.waitForLoadState("networkidle");
      await page.screenshot({ path: path.join(SHOTS, `${name}-${viewportName}.png`), fullPage: true });
    }
    const playground = console.playground();
    await playground.open();
    await playground.chooseModel("gpt-test");
    await playground.send("Show me a **markdown** list:\n- one\n- two");
    await expect(playground.lastReply()).toContainText("Echo:");
    await expect(page.getByTestId("upstream-response")).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `playground-chat-${viewportName}.png`), fullPage: true });
    await console.open("/console/logs");
    await page.locator("tbody tr").first().getByRole("link").click();
    await expect(page.getByRole("heading", { name: "Request detail" })).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `log-detail-${viewportName}.png`), fullPage: true });
  });
}
