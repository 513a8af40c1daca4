import fs from "node:fs";
import path from "node:path";
import OpenAI from "openai";
import type { Page } from "@playwright/test";
import { ADMIN, expect, test } from "./fixtures";

// End-user limits in the console: a token's and a team's windows that every end user (the
// request's `user`, safety_identifier, metadata.user_id or x-end-user-id) gets of their own.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

/** Screenshots at each width, and the page never scrolls sideways. */
async function shoot(page: Page, name: string) {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await expect
      .poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), { message: `${name} at ${viewport.width}px scrolls sideways` })
      .toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(SHOTS, `end-user-${name}-${viewport.width}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS[0]!);
}

test.describe("end-user limits", () => {
  test("a token's end-user window set in the console is stored, shown on edit, and caps each end user", async ({ console, page, deployment }) => {
    const { gateway } = deployment;
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/tokens");
    await page.getByRole("button", { name: "Create token" }).click();
    let form = page.getByRole("form", { name: "Create token" });
    await form.getByLabel("Name", { exact: true }).fill("per-person");
    await form.getByRole("button", { name: "Add end-user window" }).click();
    let window = form.getByTestId("token-end-user-windows").getByRole("group", { name: "End-user window 1" });
    await window.getByLabel("Window", { exact: true }).fill("1h");
    await window.getByLabel("Requests").fill("2");
    await form.getByRole("button", { name: "Create", exact: true }).click();
    const key = (await page.getByTestId("new-token-key").textContent())?.trim() ?? "";
    await page.getByRole("button", { name: "Done" }).click();
    const row = page.getByTestId("token-row-per-person");
    await expect(row.getByTestId("token-limits")).toContainText("each end user, 1h: 2 requests");

    const listed = await gateway.admin("GET", "/api/admin/tokens");
    const id = (listed.body.data as { id: string; name: string }[]).find((token) => token.name === "per-person")?.id;
    const stored = await gateway.admin("GET", `/api/admin/tokens/${id}`);
    expect(stored.body.endUserLimits).toEqual([{ window: "1h", requests: 2 }]);
    expect(stored.body.limits).toEqual([]);

    // Two answers for the end user, then the window refuses them; another end user still gets through.
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const ask = (user: string) => client.chat.completions.create({ model: "gpt-test", user, messages: [{ role: "user", content: "hi" }], max_tokens: 1 });
    await expect(ask("e2e-end-user")).resolves.toHaveProperty("choices");
    await expect(ask("e2e-end-user")).resolves.toHaveProperty("choices");
    await expect(ask("e2e-end-user")).rejects.toMatchObject({ status: 429 });
    await expect(ask("e2e-other-user")).resolves.toHaveProperty("choices");

    await page.reload();
    await row.getByRole("button", { name: "Edit" }).click();
    form = page.getByRole("form", { name: "Edit token per-person" });
    window = form.getByTestId("token-end-user-windows").getByRole("group", { name: "End-user window 1" });
    await expect(window.getByLabel("Window", { exact: true })).toHaveValue("1h");
    await expect(window.getByLabel("Requests")).toHaveValue("2");
    await expect(form.getByTestId("token-windows").getByRole("group")).toHaveCount(0);
    await expect(form.getByText("Each end user of this token (named by the request's user")).toBeVisible();
    await shoot(page, "token-form");

    // Removing the window in the form clears it.
    await window.getByRole("button", { name: "Remove" }).click();
    await form.getByRole("button", { name: "Save token" }).click();
    await expect(page.getByRole("status")).toContainText("Saved");
    expect((await gateway.admin("GET", `/api/admin/tokens/${id}`)).body.endUserLimits).toEqual([]);
  });

  test("a team's end-user window set in the console is stored and shown in its settings", async ({ console, page, deployment }) => {
    const { gateway } = deployment;
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/teams");
    const create = page.getByRole("form", { name: "Create team" });
    await create.getByLabel("Name").fill("Support bots");
    await create.getByRole("button", { name: "Add end-user window" }).click();
    const window = create.getByRole("group", { name: "End-user window 1" });
    await window.getByLabel("Window", { exact: true }).fill("1h");
    await window.getByLabel("Requests").fill("2");
    await create.getByRole("button", { name: "Create team" }).click();
    await expect(page).toHaveURL(/\/console\/teams\/[^/]+$/);
    const id = page.url().split("/").pop() ?? "";

    const stored = await gateway.admin("GET", `/api/admin/teams/${id}`);
    expect(stored.body.endUserLimits).toEqual([{ window: "1h", requests: 2 }]);
    expect(stored.body.limits).toEqual([]);

    const settings = page.getByRole("form", { name: "Team settings" });
    const shown = settings.getByTestId(`team-end-user-${id}-windows`).getByRole("group", { name: "End-user window 1" });
    await expect(shown.getByLabel("Window", { exact: true })).toHaveValue("1h");
    await expect(shown.getByLabel("Requests")).toHaveValue("2");
    await settings.scrollIntoViewIfNeeded();
    await shoot(page, "team-form");

    // An edit keeps to the same path: the changed window is what the API then reports.
    await shown.getByLabel("Requests").fill("5");
    await settings.getByRole("button", { name: "Save team" }).click();
    await expect.poll(async () => (await gateway.admin("GET", `/api/admin/teams/${id}`)).body.endUserLimits).toEqual([{ window: "1h", requests: 5 }]);
  });
});
