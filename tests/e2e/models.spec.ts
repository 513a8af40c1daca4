import { ADMIN, expect, test } from "./fixtures";

// The Models page: every model a channel serves, with its record (fallbacks, strategy,
// context window) edited from the console and applied by the API.

test("the Models page lists a model with its channel and price, and saves an edit", async ({ console, page, deployment }) => {
  const { gateway } = deployment;
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "Priced loopback",
    type: "openai",
    baseUrl: deployment.upstream.baseUrl,
    apiKey: "sk-upstream-secret-0123456789abcdef",
    models: ["models-page-model", "models-page-backup"],
    prices: { "models-page-model": { input: 2.5, output: 10 } },
  });
  expect(channel.status).toBe(201);
  const record = await gateway.admin("POST", "/api/admin/models", { name: "models-page-model", contextWindow: 128000 });
  expect(record.status).toBe(201);

  await console.signIn(ADMIN.email, ADMIN.password);
  await page.getByRole("link", { name: "Models" }).click();
  await expect(page.getByRole("heading", { name: "Models" })).toBeVisible();
  const row = page.getByTestId("model-row-models-page-model");
  await expect(row).toContainText("Priced loopback");
  await expect(row).toContainText("$2.50 in · $10.00 out");
  await expect(row.getByTestId("model-context-window")).toHaveText("128,000");
  await expect(row.getByTestId("model-strategy")).toHaveText("weighted");
  // A model only a channel names is listed too, without a record.
  await expect(page.getByTestId("model-row-models-page-backup")).toContainText("no record");

  await row.getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("form", { name: "Edit model models-page-model" });
  await form.getByLabel("Strategy").selectOption("latency");
  await form.getByLabel("Fallbacks").fill("models-page-backup");
  await form.getByLabel("Context window").fill("200000");
  await form.getByRole("button", { name: "Save model" }).click();
  await expect(page.getByRole("status")).toContainText("Saved “models-page-model”");
  await expect(row.getByTestId("model-strategy")).toHaveText("latency");
  await expect(row.getByTestId("model-fallbacks")).toHaveText("models-page-backup");
  await expect(row.getByTestId("model-context-window")).toHaveText("200,000");

  // The admin API sees the same record.
  const listed = await gateway.admin<{ data: { name: string; strategy: string; fallbacks: string[]; contextWindow: number | null }[] }>("GET", "/api/admin/models");
  const saved = listed.body.data.find((model) => model.name === "models-page-model");
  expect(saved).toMatchObject({ strategy: "latency", fallbacks: ["models-page-backup"], contextWindow: 200000 });

  // A mistake is refused with the reason, and nothing changes.
  await row.getByRole("button", { name: "Edit" }).click();
  await form.getByLabel("Fallbacks").fill("models-page-model");
  await form.getByRole("button", { name: "Save model" }).click();
  await expect(form.getByRole("alert")).toContainText("cannot be its own fallback");
});
