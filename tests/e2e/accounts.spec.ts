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
  // Only whoever can read the start-up output or the data directory can claim the deployment.
  await page.getByLabel("Setup code").fill("AAAA-BBBB-CCCC-DDDD");
  await page.getByLabel("Email").fill("owner@example.com");
  await page.getByLabel("Password", { exact: true }).fill("owner-password");
  await page.getByLabel("Confirm password").fill("owner-password");
  await page.getByRole("button", { name: "Create admin account" }).click();
  await expect(page.getByText("That setup code is not right.")).toBeVisible();
  await page.getByLabel("Setup code").fill(gateway.setupCode());
  await page.getByLabel("Confirm password").fill("owner-passwort");
  await page.getByRole("button", { name: "Create admin account" }).click();
  // A mistake keeps what was typed: only the error is new.
  await expect(page.getByText("The passwords do not match.")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue("owner@example.com");
  await expect(page.getByLabel("Password", { exact: true })).toHaveValue("owner-password");
  await page.getByLabel("Confirm password").fill("owner-password");
  await page.getByRole("button", { name: "Create admin account" }).click();
  // Setup signs the new admin in.
  await expect(page).toHaveURL(/\/console$/);
  await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  await pages.open("/setup");
  await expect(page).not.toHaveURL(/\/setup$/);

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

test("an admin disables, re-enables and promotes a user from the Users page; the user's open session follows at once", async ({ page, browser }) => {
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  const member = new ConsolePages(memberPage, gateway.url);
  await member.signIn("member@example.com", "member-password");
  await expect(memberPage.getByRole("link", { name: "Channels" })).toHaveCount(0);

  const owner = new ConsolePages(page, gateway.url);
  await owner.signIn("owner@example.com", "owner-password");
  await owner.open("/console/users");
  const row = page.getByRole("row").filter({ hasText: "member@example.com" });
  await row.getByRole("button", { name: "Disable" }).click();
  await expect(row.getByText("disabled")).toBeVisible();
  await member.open("/console");
  await expect(memberPage).toHaveURL(/\/login/);

  await row.getByRole("button", { name: "Enable" }).click();
  await expect(row.getByRole("button", { name: "Disable" })).toBeVisible();
  await row.getByRole("button", { name: "Make admin" }).click();
  await expect(row.getByRole("button", { name: "Make user" })).toBeVisible();
  // The owner cannot lock themselves out from their own row.
  await expect(page.getByRole("row").filter({ hasText: "owner@example.com" }).getByRole("button", { name: "Delete" })).toBeDisabled();

  await member.signIn("member@example.com", "member-password");
  await expect(memberPage.getByRole("link", { name: "Channels" })).toBeVisible();
  await memberContext.close();
});
