import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import OpenAI from "openai";
import { UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { ADMIN, expect, test, type Deployment } from "./fixtures";

// Every console page, with rows in its tables, at two desktop sizes and a phone: nothing
// wider than its box, no sideways page scroll, every action button whole. Screenshots of
// each land in tests/e2e/screenshots (not committed) for a person to look at.

const SHOTS = path.join(import.meta.dirname, "screenshots");
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
  // A tablet or a narrow window: cards, like a phone, rather than a table that scrolls.
  { width: 1024, height: 768 },
];

/** Everything on the page that does not fit, in words; empty when the page fits. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (element: Element) => {
      const testId = element.getAttribute("data-testid");
      const text = (element.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
      return `<${element.tagName.toLowerCase()}${testId ? ` data-testid=${testId}` : ""}> "${text}"`;
    };
    const shown = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.width > 1 && box.height > 1 && getComputedStyle(element).visibility !== "hidden";
    };
    const root = document.scrollingElement!;
    if (root.scrollWidth > root.clientWidth) problems.push(`the page scrolls sideways: ${root.scrollWidth}px of content in ${root.clientWidth}px`);

    for (const element of document.querySelectorAll("body *")) {
      if (!shown(element) || element.closest("svg, pre, textarea, select")) continue;
      const style = getComputedStyle(element);
      // Code and form fields scroll inside themselves by design; anything else that is
      // cut off or scrolls sideways hides part of its value.
      if (style.overflowX !== "visible" && element.scrollWidth > element.clientWidth + 1 && !["INPUT", "PRE", "TEXTAREA"].includes(element.tagName)) {
        if (style.textOverflow === "ellipsis") {
          if (!element.closest("[title]")) problems.push(`cut short with no full value on hover: ${name(element)}`);
        } else {
          problems.push(`content wider than its box (${element.scrollWidth}px in ${element.clientWidth}px): ${name(element)}`);
        }
      }
      // An element that sticks out of its parent's right edge runs over its neighbour.
      // (Zero-width wrappers, as chart libraries use to measure, are looked through.)
      let parent = element.parentElement;
      while (parent && parent.getBoundingClientRect().width === 0) parent = parent.parentElement;
      if (parent && style.position !== "absolute" && style.position !== "fixed") {
        const overhang = element.getBoundingClientRect().right - parent.getBoundingClientRect().right;
        if (overhang > 1) problems.push(`${Math.round(overhang)}px past its parent's edge: ${name(element)}`);
      }
    }

    for (const button of document.querySelectorAll("button, [role=tab], a.rounded-md")) {
      if (!shown(button)) continue;
      const box = button.getBoundingClientRect();
      const style = getComputedStyle(button);
      if (button.scrollWidth > button.clientWidth + 1 || style.textOverflow === "ellipsis") problems.push(`button label cut: ${name(button)}`);
      if (box.left < -0.5 || box.right > window.innerWidth + 0.5) problems.push(`button outside the window: ${name(button)}`);
      for (let ancestor = button.parentElement; ancestor; ancestor = ancestor.parentElement) {
        if (getComputedStyle(ancestor).overflowX === "visible") continue;
        const clip = ancestor.getBoundingClientRect();
        if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5) problems.push(`button clipped by ${ancestor.tagName.toLowerCase()}: ${name(button)}`);
      }
    }
    return [...new Set(problems)];
  });
}

/** Rows for every table: tokens with limits, users, priced and failed requests, a long error. */
async function fillTables(deployment: Deployment) {
  const { gateway, upstream } = deployment;
  const origin = upstream.baseUrl.replace(/\/v1$/, "");
  const created = [
    await gateway.admin("POST", "/api/admin/channels", {
      name: "Priced loopback with a rather long channel name",
      type: "openai",
      baseUrl: upstream.baseUrl,
      apiKey: UPSTREAM_API_KEY,
      models: ["priced-model-with-a-long-descriptive-name-2025-01-01", "free-model"],
      modelMap: { "priced-model-with-a-long-descriptive-name-2025-01-01": "fake-upstream-model", "free-model": "fake-upstream-model" },
      prices: { "priced-model-with-a-long-descriptive-name-2025-01-01": { input: 3, output: 15 }, "free-model": { input: 0, output: 0 } },
    }),
    // Saved without the check, so its calls fail with a long error for the Error column.
    await gateway.admin("POST", "/api/admin/channels", {
      name: "Missing version segment",
      type: "openai",
      baseUrl: origin,
      apiKey: UPSTREAM_API_KEY,
      models: ["layout-broken-model"],
    }),
    await gateway.admin("POST", "/api/admin/users", { email: "a.very.long.address.for.layout@subdomain.example.com", password: "layout-password-1", role: "user" }),
  ];
  for (const response of created) expect(response.status, JSON.stringify(response.body)).toBe(201);
  const token = await gateway.admin("POST", "/api/admin/tokens", {
    name: "Layout token with a name longer than a column",
    models: ["priced-model-with-a-long-descriptive-name-2025-01-01", "free-model", "mock-chat", "layout-broken-model", "gpt-test"],
    rpm: 1000,
    tpm: 1_000_000,
    quotaTokens: 5_000_000,
    budgetUsd: 250,
    quotaPeriod: "monthly",
    expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  });
  expect(token.status).toBe(201);
  const client = new OpenAI({ apiKey: token.body.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  const ask = (model: string, stream = false) =>
    stream
      ? client.chat.completions.create({ model, stream: true, messages: [{ role: "user", content: "layout" }] }).then(async (chunks) => {
          for await (const _ of chunks);
        })
      : client.chat.completions.create({ model, messages: [{ role: "user", content: "layout" }] });
  await ask("priced-model-with-a-long-descriptive-name-2025-01-01");
  await ask("free-model");
  await ask("mock-chat", true);
  await ask("gpt-test");
  await expect(ask("layout-broken-model")).rejects.toMatchObject({ status: 502 });
  await expect(ask("gpt-tset")).rejects.toThrow();
}

const PAGES = [
  ["dashboard", "/console"],
  ["dashboard-7d", "/console?range=7d"],
  ["tokens", "/console/tokens"],
  ["channels", "/console/channels"],
  ["models", "/console/models"],
  ["logs", "/console/logs"],
  ["users", "/console/users"],
  ["api-reference", "/console/api"],
  ["account", "/console/account"],
  ["playground", "/console/playground"],
  ["not-found", "/console/no-such-page"],
  ["not-found-outside", "/no-such-page"],
] as const;

test.describe("console layout", () => {
  test.beforeAll(async ({ deployment }) => {
    fs.mkdirSync(SHOTS, { recursive: true });
    await fillTables(deployment);
  });

  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}x${viewport.height}`;
    test(`every console page fits at ${size}`, async ({ console, page, deployment }) => {
      test.setTimeout(180_000);
      await page.setViewportSize(viewport);
      await console.signIn(ADMIN.email, ADMIN.password);
      const check = async (label: string) => {
        await page.waitForLoadState("networkidle");
        await page.screenshot({ path: path.join(SHOTS, `layout-${label}-${size}.png`), fullPage: true });
        expect.soft(await layoutProblems(page), `${label} at ${size}`).toEqual([]);
      };
      for (const [label, route] of PAGES) {
        await console.open(route);
        await expect(page.locator("h1")).toBeVisible();
        await check(label);
      }

      // Open states: a token's snippets, a user's limits, a log row's detail, a chat with its inspector.
      await console.open("/console/tokens");
      await page.getByTestId("token-row-Layout token with a name longer than a column").getByRole("button", { name: "Use", exact: true }).click();
      await expect(page.getByTestId("snippet")).toBeVisible();
      await check("tokens-snippets");

      await console.open("/console/channels");
      await page.getByRole("button", { name: "Add channel" }).click();
      const form = page.getByRole("form", { name: "Add channel" });
      await form.getByLabel("Base URL").fill(deployment.upstream.baseUrl);
      await form.getByLabel("API key").fill(UPSTREAM_API_KEY);
      await form.getByRole("button", { name: "Fetch models from the upstream" }).click();
      await expect(form.getByRole("group", { name: "Upstream models" })).toContainText("gpt-4o-mini");
      await check("channel-form-models");

      await console.open("/console/users");
      await page.getByTestId("user-row-a.very.long.address.for.layout@subdomain.example.com").locator("summary").click();
      await check("users-limits");

      await console.open("/console/logs");
      // The typo row names layout-broken-model too, among the models its key may use.
      const failed = page.locator("tbody tr").filter({ hasText: "layout-broken-model" }).filter({ hasNotText: "gpt-tset" }).first();
      await expect(failed).toContainText("502");
      await failed.getByRole("link").click();
      await expect(page.getByRole("heading", { name: "Request detail" })).toBeVisible();
      await check("log-detail");

      const playground = console.playground();
      await playground.open();
      await playground.chooseModel("gpt-test");
      await playground.send(`A reply long enough to wrap: ${"word ".repeat(60)}`);
      await expect(page.getByTestId("upstream-response")).toBeVisible();
      await check("playground-chat");

      // Wide screens show tables; a phone shows each row as a card with labelled fields.
      await console.open("/console/logs");
      const header = page.locator("thead").first();
      if (viewport.width >= 1280) {
        await expect(header).toBeVisible();
        for (const column of ["Cost", "Latency", "TTFT", "Error"]) await expect(header.getByText(column)).toBeInViewport({ ratio: 1 });
      } else {
        await expect(header).toBeHidden();
      }
    });
  }
});
