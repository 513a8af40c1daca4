import { expect, test } from "@playwright/test";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { ConsolePages } from "./pages/console-pages";

// A deployment started with no ADMIN_EMAIL: first-visit setup, then roles.
let gateway: Gateway;
test.beforeAll(async () => {
  gateway = await startGateway();
});
test.afterAll(async () => gateway?.stop());

test("first visit creates the admin once; admins add users; users cannot reach admin pages", async ({ page }) => {
  const pages = new ConsolePages(page, gateway.url);
  await pages.open("/console");
  await expect(page).toHaveURL(/\/setup$/);
  await page.getByLabel("Email").fill("owner@example.com");
  await page.getByLabel("Password", { exact: true }).fill("owner-password");
  await page.getByLabel("Confirm password").fill("owner-password");
  await page.getByRole("button", { name: "Create admin account" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await pages.open("/setup");
  await expect(page).toHaveURL(/\/login$/);

  await pages.signIn("owner@example.com", "owner-password");
  await pages.open("/console/users");
  const form = page.getByRole("form", { name: "Create user" });
  await form.getByLabel("Email").fill("member@example.com");
  await form.getByLabel("Initial password").fill("member-password");
  await form.getByRole("button", { name: "Add user" }).click();
  await expect(page.getByText("Created member@example.com.")).toBeVisible();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);

  await pages.signIn("member@example.com", "member-password");
  await expect(page.getByRole("link", { name: "Channels" })).toHaveCount(0);
  await pages.open("/console/channels");
  await expect(page).toHaveURL(/\/console$/);
  const admin = await fetch(`${gateway.url}/api/admin/tokens`, { headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ") } });
  expect(admin.status).toBe(403);
});
