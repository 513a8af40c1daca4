import http from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import { UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { ADMIN, expect, test } from "./fixtures";

// The console's smaller promises: code shown as code, a way back from a wrong address,
// a model list of hundreds that stays usable, health right after a save, a Playground that
// sends only what the user set, and costs that read the same on every page.

/** An upstream that lists `count` models and serves nothing else, as OpenRouter lists ~300. */
async function startModelListUpstream(count: number) {
  const ids = Array.from({ length: count }, (_, index) => (index % 3 === 0 ? `vendor/gpt-${index}-mini` : `vendor/llama-${index}-instruct`));
  const server = http.createServer((request, response) => {
    response.setHeader("content-type", "application/json");
    if (request.url === "/v1/models") return response.end(JSON.stringify({ object: "list", data: ids.map((id) => ({ id, object: "model" })) }));
    response.statusCode = 404;
    response.end(JSON.stringify({ error: { message: "not here" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, ids, close: () => new Promise((resolve) => server.close(resolve)) };
}

test("the API reference shows inline code as code, not backticks", async ({ console, page }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/api");
  const openai = page.getByTestId("api-OpenAI");
  await expect(openai.locator("code", { hasText: /^stream: true$/ })).toBeVisible();
  await expect(
    page
      .getByTestId("api-Gemini")
      .locator("code", { hasText: /^alt=sse$/ })
      .first(),
  ).toBeVisible();
  expect(await page.locator("main").textContent()).not.toContain("`");
});

test("an unknown address shows a branded not-found page with a way back", async ({ console, page, deployment }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  const inside = await page.goto(`${deployment.gateway.url}/console/no-such-page`);
  expect(inside?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: /No such page/ })).toBeVisible();
  // Inside the console the menu stays, so every page is one click away.
  await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Logs" })).toBeVisible();
  await page.getByRole("link", { name: "Go to the console" }).click();
  await expect(page).toHaveURL(/\/console$/);

  const outside = await page.goto(`${deployment.gateway.url}/no-such-page`);
  expect(outside?.status()).toBe(404);
  await expect(page.getByTestId("not-found")).toContainText("Model Gateway");
  await expect(page.getByRole("link", { name: "Go to the console" })).toBeVisible();

  const missingLog = await page.goto(`${deployment.gateway.url}/console/logs/no-such-request`);
  expect(missingLog?.status()).toBe(404);
  await expect(page.getByTestId("not-found")).toBeVisible();
});

test("fetched models appear by their button, filter, and select all or none of ~300", async ({ console, page }) => {
  const upstream = await startModelListUpstream(300);
  try {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/channels");
    await page.getByRole("button", { name: "Add channel" }).click();
    const form = page.getByRole("form", { name: "Add channel" });
    await form.getByLabel("Base URL").fill(upstream.baseUrl);
    await form.getByLabel("API key").fill("any");
    const fetchButton = form.getByRole("button", { name: "Fetch models from the upstream" });
    await fetchButton.click();
    const listed = form.getByRole("group", { name: "Upstream models" });
    await expect(listed).toContainText("300 models at the upstream, 0 chosen");
    // Right under the button, not below the rest of the form.
    const buttonBox = (await fetchButton.boundingBox())!;
    const listBox = (await listed.boundingBox())!;
    expect(listBox.y - (buttonBox.y + buttonBox.height)).toBeLessThan(40);

    await listed.getByLabel("Filter upstream models").fill("gpt mini");
    await expect(listed.getByRole("checkbox")).toHaveCount(100);
    await listed.getByRole("button", { name: "Select 100 shown" }).click();
    await expect(listed).toContainText("100 chosen");
    const models = form.getByLabel("Models", { exact: true });
    const chosen = (await models.inputValue()).split(", ");
    expect(chosen).toHaveLength(100);
    expect(chosen.every((model) => /^vendor\/gpt-\d+-mini$/.test(model))).toBe(true);

    await listed.getByLabel("Filter upstream models").fill("");
    await listed.getByRole("button", { name: "Select all" }).click();
    await expect(listed).toContainText("300 chosen");
    await listed.getByRole("button", { name: "Select none" }).click();
    await expect(listed).toContainText("0 chosen");
    await expect(models).toHaveValue("");
  } finally {
    await upstream.close();
  }
});

test("a channel whose save test passed reads healthy at once, not 'Not used yet'", async ({ console, page, deployment }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/channels");
  await page.getByRole("button", { name: "Add channel" }).click();
  const form = page.getByRole("form", { name: "Add channel" });
  await form.getByLabel("Name", { exact: true }).fill("Tested on save");
  await form.getByLabel("Base URL").fill(deployment.upstream.baseUrl);
  await form.getByLabel("API key").fill(UPSTREAM_API_KEY);
  await form.getByLabel("Models", { exact: true }).fill("fake-upstream-model");
  await form.getByRole("button", { name: "Save channel" }).click();
  const row = page.getByTestId("channel-row-Tested on save");
  await expect(row).toContainText(/OK · \d+ ms/);
  await expect(row).not.toContainText("Not used yet");
});

test("keys written one per line make a pool, listed by their last four characters only", async ({ console, page, deployment }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/channels");
  await page.getByRole("button", { name: "Add channel" }).click();
  const form = page.getByRole("form", { name: "Add channel" });
  await form.getByLabel("Name", { exact: true }).fill("Key pool");
  await form.getByLabel("Base URL").fill(deployment.upstream.baseUrl);
  const second = "sk-second-pool-key-wxyz";
  await form.getByLabel("API key").fill(`${UPSTREAM_API_KEY}\n${second}\n`);
  await form.getByLabel("Models", { exact: true }).fill("fake-upstream-model");
  await form.getByRole("button", { name: "Save channel" }).click();
  const keys = page.getByTestId("channel-row-Key pool").getByTestId("channel-keys");
  await expect(keys).toContainText(`…${UPSTREAM_API_KEY.slice(-4)}`);
  await expect(keys).toContainText("…wxyz");
  await expect(page.locator("body")).not.toContainText(second);
});

test("the Playground sends a temperature only after the user sets one", async ({ console, page }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  const playground = console.playground();
  await playground.open();
  await playground.chooseModel("gpt-test");
  await expect(page.getByText("Temperature: model default")).toBeVisible();
  await playground.send("untouched");
  await expect(playground.lastReply()).toContainText("Echo: untouched");
  await page.getByText("Sent to the gateway").click();
  await expect(page.getByTestId("sent-request")).toContainText('"model": "gpt-test"');
  await expect(page.getByTestId("sent-request")).not.toContainText("temperature");
  await expect(page.getByTestId("upstream-request")).not.toContainText("temperature");

  await page.getByLabel(/^Temperature/).fill("0.3");
  await expect(page.getByText("Temperature: 0.3")).toBeVisible();
  await playground.send("cooler");
  await expect(playground.lastReply()).toContainText("Echo: cooler");
  await expect(page.getByTestId("sent-request")).toContainText('"temperature": 0.3');

  await page.getByRole("button", { name: "Default" }).click();
  await expect(page.getByText("Temperature: model default")).toBeVisible();
});

test("a model served by a since-deleted channel stays with the served models on the dashboard", async ({ console, page, deployment }) => {
  const { gateway, upstream } = deployment;
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "Soon deleted",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["retired-model"],
    modelMap: { "retired-model": "fake-upstream-model" },
  });
  expect(channel.status).toBe(201);
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "retiring" })).body.key;
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model: "retired-model", messages: [{ role: "user", content: "before the delete" }] });
  expect((await gateway.admin("DELETE", `/api/admin/channels/${channel.body.id}`)).status).toBeLessThan(300);

  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console");
  await expect(page.getByTestId("models-known")).toContainText("retired-model");
  await expect(page.getByTestId("models-unknown").filter({ hasText: "retired-model" })).toHaveCount(0);
  await expect(page.getByTestId("usage-by-channel")).toContainText("deleted channel");
});

test("a request priced at $0 reads $0 and an unpriced one reads — in Logs and on the dashboard alike", async ({ console, page, deployment }) => {
  const { gateway, upstream } = deployment;
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "Free of charge",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["zero-priced-model"],
    modelMap: { "zero-priced-model": "fake-upstream-model" },
    prices: { "zero-priced-model": { input: 0, output: 0 } },
  });
  expect(channel.status).toBe(201);
  const key = (await gateway.admin("POST", "/api/admin/tokens", { name: "cost words" })).body.key;
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  await client.chat.completions.create({ model: "zero-priced-model", messages: [{ role: "user", content: "free" }] });
  await client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "unpriced" }] });

  await console.signIn(ADMIN.email, ADMIN.password);
  for (const [model, cost] of [
    ["zero-priced-model", "$0"],
    ["mock-chat", "—"],
  ] as const) {
    await console.open(`/console/logs?model=${model}`);
    await expect(page.locator("tbody tr").first().getByTestId("log-cost")).toHaveText(cost);
    await page.locator("tbody tr").first().getByRole("link").click();
    await expect(page.getByTestId("log-cost")).toHaveText(cost);
    await console.open("/console");
    await expect(page.getByTestId("models-known").getByRole("row").filter({ hasText: model }).getByRole("cell").last()).toHaveText(cost);
  }
});

test("each model's price says where it comes from, and a token's response cache shows its hits in Logs", async ({ console, page, deployment }) => {
  const { gateway, upstream } = deployment;
  const channel = await gateway.admin("POST", "/api/admin/channels", {
    name: "Catalogue priced",
    type: "openai",
    baseUrl: upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["gpt-4o-mini", "house-model"],
    modelMap: { "house-model": "fake-upstream-model" },
    prices: { "house-model": { input: 1, output: 2 } },
  });
  expect(channel.status).toBe(201);
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/channels");
  const models = page.getByTestId("channel-row-Catalogue priced").getByRole("listitem");
  await expect(models.filter({ hasText: "gpt-4o-mini" })).toContainText("(catalogue)");
  await expect(models.filter({ hasText: "house-model" })).toContainText("$1 / $2 (channel)");

  // Caching is allowed on the token form, then asked for per request.
  const key = await console.createToken("cached laptop");
  await page.getByTestId("token-row-cached laptop").getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("form", { name: "Edit token cached laptop" });
  await form.getByLabel("Response cache (seconds)").fill("120");
  await form.getByRole("button", { name: "Save token" }).click();
  await expect(page.getByTestId("token-row-cached laptop")).toContainText("cache ≤ 120 s");
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: { "x-gateway-cache-ttl": "60" } });
  const question = { model: "gpt-4o-mini", messages: [{ role: "user" as const, content: "same question twice" }] };
  await client.chat.completions.create(question);
  const again = await client.chat.completions.create(question).withResponse();
  expect(again.response.headers.get("x-gateway-cache")).toBe("hit");

  await console.open("/console/logs?model=gpt-4o-mini");
  const csv = await (await page.request.get(new URL("/console/logs/export?model=gpt-4o-mini", page.url()).toString())).text();
  expect(csv.split("\r\n")[0]).toContain("cache,cache_saved_usd");
  expect(csv).toMatch(/,hit,0\.0000\d+/);
  const newest = page.locator("tbody tr").first();
  await expect(newest).toContainText("cache hit");
  await newest.getByRole("link").click();
  await expect(page.getByTestId("log-cache")).toContainText(/Hit: answered from the cache, saving \$0\.0000\d+/);
  await expect(page.getByTestId("log-cost")).toHaveText("$0");
});
