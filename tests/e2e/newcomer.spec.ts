import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Page } from "@playwright/test";
import OpenAI from "openai";
import { UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { ADMIN, expect, test } from "./fixtures";

// What a newcomer met in their second hour (issue 36): the Playground's first model, a
// channel form that loops back, the Tokens page on a phone, the channel types' names,
// the base URL hint, signing in from a bookmarked page, model order, the Account page,
// and which model answered when a fallback did. Screenshots land in tests/e2e/screenshots.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

/** An OpenAI-compatible upstream whose every answer reports 2,500,191 tokens used. */
async function startHeavyUsageUpstream() {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          id: "chatcmpl-heavy",
          object: "chat.completion",
          created: 1_700_000_001,
          model: "heavy-upstream",
          choices: [{ index: 0, message: { role: "assistant", content: "Read it all." }, finish_reason: "stop" }],
          usage: { prompt_tokens: 2_500_000, completion_tokens: 191, total_tokens: 2_500_191 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Opens the phone menu when the links are folded away. */
async function menu(page: Page) {
  const toggle = page.getByRole("button", { name: "Menu" });
  if (await toggle.isVisible()) await toggle.click();
  return page.getByRole("navigation", { name: "Console" });
}

test.beforeAll(() => fs.mkdirSync(SHOTS, { recursive: true }));

test("the Playground starts on a model whose channel has answered, not one never used", async ({ console, page, deployment }) => {
  const { gateway, upstream } = deployment;
  // "aaa-" sorts first: before the fix the Playground opened on it.
  for (const [name, model] of [
    ["Never used", "aaa-untried-model"],
    ["Has answered", "zz-answered-model"],
  ]) {
    const created = await gateway.admin("POST", "/api/admin/channels", {
      name,
      type: "openai",
      baseUrl: upstream.baseUrl,
      apiKey: UPSTREAM_API_KEY,
      models: [model],
      modelMap: { [model]: "fake-upstream-model" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }
  const token = await gateway.admin("POST", "/api/admin/tokens", { name: "First answer", models: ["zz-answered-model"] });
  await new OpenAI({ apiKey: token.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({
    model: "zz-answered-model",
    messages: [{ role: "user", content: "hello" }],
  });
  // Health is written to the channel rows every few seconds.
  const answeredModels = async () => {
    const channels = (await gateway.admin("GET", "/api/admin/channels")).body as { data?: unknown[] } | unknown[];
    const list = (Array.isArray(channels) ? channels : (channels.data ?? [])) as { models: string[]; lastError: string | null; lastLatencyMs: number | null; enabled: boolean }[];
    return list.filter((channel) => channel.enabled && channel.lastLatencyMs !== null && !channel.lastError).flatMap((channel) => channel.models);
  };
  await expect.poll(answeredModels, { timeout: 20_000 }).toContain("zz-answered-model");

  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/playground");
  const picked = await page.getByLabel("Model", { exact: true }).inputValue();
  expect(picked).not.toBe("aaa-untried-model");
  expect(await answeredModels()).toContain(picked);
  await console.playground().send("Does the first message work?");
  await expect(console.playground().lastReply().getByTestId("reply-stats")).toBeVisible();
  await expect(console.playground().lastReply()).not.toContainText("failed");
});

test("a channel refused as a loop does not offer 'Save without the check'", async ({ console, page, deployment }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/channels");
  await page.getByRole("button", { name: "Add channel" }).click();
  const form = page.getByRole("form", { name: "Add channel" });
  await form.getByLabel("Name", { exact: true }).fill("Back to myself");
  await form.getByLabel("Base URL").fill(`${deployment.gateway.url}/v1`);
  await form.getByLabel("API key").fill("sk-anything");
  await form.getByLabel("Models", { exact: true }).fill("loop-model");
  await form.getByRole("button", { name: "Save channel" }).click();
  await expect(form).toContainText("leads back to this gateway");
  await expect(form.getByRole("button", { name: "Save without the check" })).toHaveCount(0);

  // Any other failed check still offers it.
  await form.getByLabel("Base URL").fill("http://127.0.0.1:9/v1");
  await form.getByRole("button", { name: "Save channel" }).click();
  await expect(form.getByRole("button", { name: "Save without the check" })).toBeVisible();
});

for (const viewport of WIDTHS) {
  test(`Tokens at ${viewport.width} px: every card fits and a 2,500,191-token count shows whole`, async ({ console, page, deployment }) => {
    const { gateway } = deployment;
    const heavy = await startHeavyUsageUpstream();
    try {
      const model = `heavy-model-${viewport.width}`;
      const channel = await gateway.admin("POST", "/api/admin/channels", {
        name: `Heavy ${viewport.width}`,
        type: "openai",
        baseUrl: heavy.baseUrl,
        apiKey: "sk-heavy",
        models: [model],
      });
      expect(channel.status, JSON.stringify(channel.body)).toBe(201);
      const name = `Heavy reader ${viewport.width}`;
      const token = await gateway.admin("POST", "/api/admin/tokens", { name, models: [model], rpm: 1000, quotaTokens: 50_000_000, quotaPeriod: "monthly" });
      await new OpenAI({ apiKey: token.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 }).chat.completions.create({ model, messages: [{ role: "user", content: "read" }] });

      await page.setViewportSize(viewport);
      await console.signIn(ADMIN.email, ADMIN.password);
      await console.open("/console/tokens");
      const used = page.getByTestId(`token-row-${name}`).getByTestId("token-used");
      await expect(used).toContainText("2,500,191 tokens");
      await page.screenshot({ path: path.join(SHOTS, `newcomer-tokens-${viewport.width}.png`), fullPage: true });
      const overflow = await page.evaluate(() => {
        const problems: string[] = [];
        const width = document.documentElement.clientWidth;
        if (document.scrollingElement!.scrollWidth > width) problems.push(`page ${document.scrollingElement!.scrollWidth}px wide in ${width}px`);
        for (const row of document.querySelectorAll("main tbody > tr")) {
          const card = row.getBoundingClientRect();
          if (card.right > width + 0.5) problems.push(`a card ends ${Math.round(card.right - width)}px past the window`);
          // Every value inside its own cell: nothing runs past the cell (or the card) it sits in.
          for (const cell of row.querySelectorAll(":scope > td")) {
            const box = cell.getBoundingClientRect();
            if (box.width < 1) continue;
            for (const inner of cell.querySelectorAll("*")) {
              const part = inner.getBoundingClientRect();
              if (part.width < 1) continue;
              const text = (inner.textContent ?? "").trim().slice(0, 40);
              if (part.right > box.right + 0.5) problems.push(`"${text}" runs ${Math.round(part.right - box.right)}px past its cell`);
              if (part.right > card.right + 0.5) problems.push(`"${text}" runs ${Math.round(part.right - card.right)}px past its card`);
            }
          }
        }
        return [...new Set(problems)];
      });
      expect(overflow).toEqual([]);
    } finally {
      await heavy.close();
    }
  });
}

test("the channel Type list names each type in words", async ({ console, page }) => {
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/channels");
  await page.getByRole("button", { name: "Add channel" }).click();
  const options = page.getByRole("form", { name: "Add channel" }).getByLabel("Type").locator("option");
  const labels = await options.allTextContents();
  for (const label of ["OpenAI or compatible", "Azure OpenAI", "Anthropic", "Google Gemini", "AWS Bedrock", "Google Vertex AI", "Mock"]) expect(labels).toContain(label);
  expect(labels).not.toContain("openai");
  expect(labels).not.toContain("azure");
});

for (const viewport of WIDTHS) {
  test(`at ${viewport.width} px the "Use …/v1" hint sits by the Base URL and fetches the models again`, async ({ console, page, deployment }) => {
    await page.setViewportSize(viewport);
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/channels");
    await page.getByRole("button", { name: "Add channel" }).click();
    const form = page.getByRole("form", { name: "Add channel" });
    const fixed = deployment.upstream.baseUrl;
    await form.getByLabel("Base URL").fill(fixed.replace(/\/v1$/, ""));
    await form.getByLabel("API key").fill(UPSTREAM_API_KEY);
    await form.getByRole("button", { name: "Fetch models from the upstream" }).click();
    const use = form.getByRole("button", { name: `Use ${fixed}` });
    await expect(use).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `newcomer-url-hint-${viewport.width}.png`), fullPage: true });
    // Next to the URL field: below it and above the Models field, not at the form's foot.
    const url = (await form.getByLabel("Base URL").boundingBox())!;
    const hint = (await use.boundingBox())!;
    const models = (await form.getByLabel("Models", { exact: true }).boundingBox())!;
    expect(hint.y).toBeGreaterThan(url.y);
    expect(hint.y).toBeLessThan(models.y);
    await use.click();
    await expect(form.getByLabel("Base URL")).toHaveValue(fixed);
    await expect(form.getByRole("group", { name: "Upstream models" })).toContainText("gpt-4o-mini");
  });
}

test("signing in returns to the page the link pointed at, its query kept", async ({ console, page }) => {
  const signInFrom = async (address: string) => {
    await page.context().clearCookies();
    await console.open(address);
    await expect(page).toHaveURL(/\/login\?callbackUrl=/);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
  };
  await signInFrom("/console/models");
  await expect(page).toHaveURL(/\/console\/models$/);
  await expect(page.locator("h1")).toHaveText("Models");

  await signInFrom("/console?range=7d");
  await expect(page).toHaveURL(/\/console\?range=7d$/);

  // Only console pages of this site: a link cannot send the user elsewhere after signing in.
  await page.context().clearCookies();
  await console.open("/login?callbackUrl=https%3A%2F%2Fexample.com%2F");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/console$/);
});

test("the Models page orders names naturally: scale-mock-2 before scale-mock-10", async ({ console, page, deployment }) => {
  const created = await deployment.gateway.admin("POST", "/api/admin/channels", {
    name: "Scale mocks",
    type: "openai",
    baseUrl: deployment.upstream.baseUrl,
    apiKey: UPSTREAM_API_KEY,
    models: ["scale-mock-10", "scale-mock-1", "scale-mock-2"],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/models");
  const names = (await page.locator("main tbody tr").allTextContents()).map((text) => /scale-mock-\d+/.exec(text)?.[0]).filter(Boolean);
  expect(names).toEqual(["scale-mock-1", "scale-mock-2", "scale-mock-10"]);
});

for (const viewport of WIDTHS) {
  test(`at ${viewport.width} px the menu has an Account item`, async ({ console, page }) => {
    await page.setViewportSize(viewport);
    await console.signIn(ADMIN.email, ADMIN.password);
    const nav = await menu(page);
    const account = nav.getByRole("link", { name: "Account", exact: true });
    await expect(account).toBeVisible();
    await page.screenshot({ path: path.join(SHOTS, `newcomer-menu-${viewport.width}.png`) });
    await account.click();
    await expect(page).toHaveURL(/\/console\/account$/);
    await expect((await menu(page)).getByRole("link", { name: "Account", exact: true })).toHaveAttribute("aria-current", "page");
  });
}

for (const viewport of WIDTHS) {
  test(`at ${viewport.width} px the Playground says which model answered when a fallback did`, async ({ console, page, deployment }) => {
    const { gateway } = deployment;
    const primary = `unreachable-primary-${viewport.width}`;
    const channel = await gateway.admin("POST", "/api/admin/channels", {
      name: `Unreachable ${viewport.width}`,
      type: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "sk-none",
      models: [primary],
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const record = await gateway.admin("POST", "/api/admin/models", { name: primary, fallbacks: ["mock-chat"] });
    expect(record.status, JSON.stringify(record.body)).toBe(201);

    await page.setViewportSize(viewport);
    await console.signIn(ADMIN.email, ADMIN.password);
    const playground = console.playground();
    await playground.open();
    await playground.chooseModel(primary);
    await playground.send("Who answers?");
    await expect(playground.lastReply().getByTestId("reply-stats")).toBeVisible();
    await expect(playground.lastReply().getByTestId("answered-by")).toContainText("mock-chat");
    await page.screenshot({ path: path.join(SHOTS, `newcomer-fallback-${viewport.width}.png`), fullPage: true });

    // The model picked answering itself: nothing to say.
    await playground.chooseModel("mock-chat");
    await playground.send("And now?");
    await expect(page.getByTestId("reply-stats")).toHaveCount(2);
    await expect(playground.lastReply().getByTestId("answered-by")).toHaveCount(0);
  });
}
