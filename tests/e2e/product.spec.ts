import type { Locator } from "@playwright/test";
import OpenAI from "openai";
import { UPSTREAM_API_KEY } from "../helpers/fake-openai-upstream";
import { startFakeVertexUpstream, VERTEX_LOCATION, VERTEX_PROJECT } from "../helpers/fake-vertex-upstream";
import { ADMIN, expect, test } from "./fixtures";

// The console as a new user meets it: the mistakes people make first, answered in place.

type Box = { x: number; y: number; width: number; height: number };
const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** No two cells of a channel row overlap, and none reaches past the window's right edge. */
async function expectRowsClear(rows: Locator, viewportWidth: number) {
  const count = await rows.count();
  expect(count).toBeGreaterThan(1);
  for (let row = 0; row < count; row += 1) {
    const cells = rows.nth(row).locator("[data-cell]");
    const boxes: (Box & { name: string })[] = [];
    for (let index = 0; index < (await cells.count()); index += 1) {
      const cell = cells.nth(index);
      const box = await cell.boundingBox();
      expect(box, "every cell is laid out").not.toBeNull();
      boxes.push({ ...box!, name: (await cell.getAttribute("data-cell")) ?? "" });
      expect(box!.x + box!.width, `${await cell.getAttribute("data-cell")} stays inside the window`).toBeLessThanOrEqual(viewportWidth + 0.5);
    }
    for (let a = 0; a < boxes.length; a += 1) {
      for (let b = a + 1; b < boxes.length; b += 1) {
        expect(intersects(boxes[a]!, boxes[b]!), `${boxes[a]!.name} and ${boxes[b]!.name} overlap in row ${row}`).toBe(false);
      }
    }
    // The buttons themselves stay whole and apart.
    const buttons = rows.nth(row).locator("[data-cell=actions] button");
    const buttonBoxes: Box[] = [];
    for (let index = 0; index < (await buttons.count()); index += 1) buttonBoxes.push((await buttons.nth(index).boundingBox())!);
    for (let a = 0; a < buttonBoxes.length; a += 1) {
      expect(buttonBoxes[a]!.x + buttonBoxes[a]!.width).toBeLessThanOrEqual(viewportWidth + 0.5);
      for (let b = a + 1; b < buttonBoxes.length; b += 1) expect(intersects(buttonBoxes[a]!, buttonBoxes[b]!)).toBe(false);
    }
  }
}

test.describe("channels", () => {
  test("a base URL without /v1 is refused with the fix; fetch models lists the upstream's", async ({ console, page, deployment }) => {
    const origin = deployment.upstream.baseUrl.replace(/\/v1$/, "");
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/channels");
    await page.getByRole("button", { name: "Add channel" }).click();
    const form = page.getByRole("form", { name: "Add channel" });
    await form.getByLabel("Name", { exact: true }).fill("Unversioned");
    await form.getByLabel("Base URL").fill(`${origin}/`);
    await form.getByLabel("API key").fill(UPSTREAM_API_KEY);
    await form.getByLabel("Models", { exact: true }).fill("unversioned-model");
    await form.getByRole("button", { name: "Save channel" }).click();
    await expect(form.getByRole("alert")).toContainText(`did you mean ${origin}/v1?`);
    await expect(page.getByTestId("channel-row-Unversioned")).toHaveCount(0);

    await form.getByRole("button", { name: `Use ${origin}/v1` }).click();
    await expect(form.getByLabel("Base URL")).toHaveValue(`${origin}/v1`);
    await form.getByRole("button", { name: "Fetch models from the upstream" }).click();
    const listed = form.getByRole("group", { name: "Upstream models" });
    await expect(listed).toContainText("gpt-4o-mini");
    await listed.getByLabel("gpt-4o-mini").check();
    await expect(form.getByLabel("Models", { exact: true })).toHaveValue("unversioned-model, gpt-4o-mini");
    await form.getByRole("button", { name: "Save channel" }).click();
    const row = page.getByTestId("channel-row-Unversioned");
    await expect(row).toContainText(`${origin}/v1`);
    await expect(row).toContainText("gpt-4o-mini");
  });

  test("a Vertex channel: its settings with their help, the service-account key pasted whole, saved after the check", async ({ console, page, deployment }) => {
    const vertex = await startFakeVertexUpstream();
    try {
      deployment.gateway.secrets.add(JSON.parse(vertex.serviceAccount.json).private_key.split("\n")[1]);
      await console.signIn(ADMIN.email, ADMIN.password);
      await console.open("/console/channels");
      await page.getByRole("button", { name: "Add channel" }).click();
      const form = page.getByRole("form", { name: "Add channel" });
      await form.getByLabel("Name", { exact: true }).fill("Vertex");
      await form.getByLabel("Type").selectOption("vertex");
      await expect(form).toContainText("Empty means https://{location}-aiplatform.googleapis.com.");
      await expect(form).toContainText("The service account's JSON key, pasted whole");
      await expect(form.getByLabel("Project ID")).toHaveAttribute("placeholder", "my-project-123");
      await expect(form).toContainText("The Google Cloud project that has the Vertex AI API enabled");
      await form.getByLabel("Base URL").fill(vertex.baseUrl);
      await form.getByLabel("API key").fill(vertex.serviceAccount.json);
      await form.getByLabel("Project ID").fill(VERTEX_PROJECT);
      await form.getByLabel("Location").fill(VERTEX_LOCATION);
      await form.getByLabel("Models", { exact: true }).fill("vx-e2e");
      await form.getByLabel("Model map").fill("vx-e2e = claude-sonnet-4@20250514");
      await form.getByRole("button", { name: "Save channel" }).click();
      const row = page.getByTestId("channel-row-Vertex");
      await expect(row).toContainText("vx-e2e → claude-sonnet-4@20250514");
      expect(vertex.tokenRequests, "the check bought a token with the pasted key").toBe(1);
      expect(vertex.rejected).toEqual([]);
    } finally {
      await vertex.close();
    }
  });

  test("the channel list stays clear at 1440x900 and 390x844, with long errors and a closable test panel", async ({ console, page, deployment }) => {
    // Two window sizes, each with a channel test against a broken upstream: past a minute on a loaded machine.
    test.setTimeout(180_000);
    const origin = deployment.upstream.baseUrl.replace(/\/v1$/, "");
    // Saved through the admin API (no check), so its traffic fails and its health says why.
    const broken = await deployment.gateway.admin("POST", "/api/admin/channels", {
      name: "Broken base URL with a rather long name",
      type: "openai",
      baseUrl: origin,
      apiKey: UPSTREAM_API_KEY,
      models: ["broken-model", "another-model-with-a-long-name-for-wrapping", "third-model"],
      modelMap: { "broken-model": "upstream-name-that-is-also-quite-long" },
      prices: { "*": { input: 1.25, output: 10 } },
    });
    expect(broken.status).toBe(201);
    const token = (await deployment.gateway.admin("POST", "/api/admin/tokens", { name: "layout" })).body.key;
    const client = new OpenAI({ apiKey: token, baseURL: `${deployment.gateway.url}/v1`, maxRetries: 0 });
    await expect(client.chat.completions.create({ model: "broken-model", messages: [{ role: "user", content: "x" }] })).rejects.toMatchObject({ status: 502 });

    await console.signIn(ADMIN.email, ADMIN.password);
    for (const viewport of [
      { width: 1440, height: 900 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      await console.open("/console/channels");
      const row = page.getByTestId("channel-row-Broken base URL with a rather long name");
      // Real traffic tried no other URL, so its reason names none (the save check does, having tried it).
      await expect(row.getByTestId("channel-failing")).toContainText(`no such endpoint under ${origin}`);
      await expect(row).toContainText("broken-model → upstream-name-that-is-also-quite-long");
      await expect(row).toContainText("Circuit");
      await row.getByRole("button", { name: "Test" }).click();
      const panel = row.getByRole("status", { name: "Test result" });
      await expect(panel).toContainText("Failed");
      await expectRowsClear(page.locator('[data-testid^="channel-row-"]'), viewport.width);
      await panel.getByRole("button", { name: "Close test result" }).click();
      await expect(panel).toHaveCount(0);
    }
  });
});

test.describe("tokens, cost and logs", () => {
  test("a token edited in the console applies to the API at once, and shows snippets for every client", async ({ console, page, deployment }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const key = await console.createToken("editable");
    const client = new OpenAI({ apiKey: key, baseURL: `${deployment.gateway.url}/v1`, maxRetries: 0 });
    const ask = (model: string) => client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }] });
    await expect(ask("gpt-test")).resolves.toBeTruthy();

    const row = page.getByTestId("token-row-editable");
    await row.getByRole("button", { name: "Edit" }).click();
    const form = page.getByRole("form", { name: "Edit token editable" });
    await form.getByLabel("Name", { exact: true }).fill("edited");
    await form.getByLabel("mock-chat", { exact: true }).check();
    await form.getByLabel("Requests per minute").fill("120");
    await form.getByRole("button", { name: "Save token" }).click();
    await expect(page.getByRole("status")).toContainText("Saved");
    const edited = page.getByTestId("token-row-edited");
    await expect(edited).toContainText("mock-chat");
    await expect(edited.getByTestId("token-limits")).toContainText("120 req/min");
    // At once: the very next request sees the allowlist.
    await expect(ask("gpt-test")).rejects.toMatchObject({ status: 403 });
    await expect(ask("mock-chat")).resolves.toBeTruthy();

    await edited.getByRole("button", { name: "Use", exact: true }).click();
    for (const [tab, text] of [
      ["Anthropic SDK", "@anthropic-ai/sdk"],
      ["Gemini SDK", "@google/genai"],
      ["Claude Code", `ANTHROPIC_BASE_URL="${deployment.gateway.url}"`],
      ["Codex", `base_url = "${deployment.gateway.url}/v1"`],
    ] as const) {
      await page.getByRole("tab", { name: tab }).click();
      await expect(page.getByTestId("snippet")).toContainText(text);
    }
  });

  test("after a priced request, cost shows in the logs, the token and the dashboard; typos are grouped apart; CSV exports", async ({ console, page, deployment }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/channels");
    await page.getByTestId("channel-row-Loopback OpenAI").getByRole("button", { name: "Edit" }).click();
    const form = page.getByRole("form", { name: "Edit channel" });
    await form.getByLabel("Prices").fill("gpt-test = 1000 / 2000");
    await form.getByRole("button", { name: "Save channel" }).click();
    await expect(page.getByTestId("channel-row-Loopback OpenAI")).toContainText("$1000 / $2000");

    const key = await console.createToken("priced");
    const client = new OpenAI({ apiKey: key, baseURL: `${deployment.gateway.url}/v1`, maxRetries: 0 });
    await client.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "what does this cost" }] });
    await expect(client.chat.completions.create({ model: "gpt-tset", messages: [{ role: "user", content: "typo" }] })).rejects.toMatchObject({ status: 404 });

    await console.open("/console/logs");
    await page.getByLabel("Token").selectOption({ label: "priced" });
    await page.getByLabel("Channel").selectOption({ label: "Loopback OpenAI" });
    await page.getByRole("button", { name: "Filter" }).click();
    const first = page.locator("tbody tr").first();
    await expect(first).toContainText("Loopback OpenAI");
    await expect(first).toContainText(/\$0\.\d+/);
    const exported = await page.request.get(new URL(`/console/logs/export?${new URL(page.url()).searchParams}`, page.url()).toString());
    expect(exported.headers()["content-type"]).toContain("text/csv");
    const csv = await exported.text();
    expect(csv.split("\r\n")[0]).toContain("cost_usd");
    expect(csv).toContain("gpt-test");
    expect(csv).not.toContain("gpt-tset");

    await console.open("/console/tokens");
    await expect(page.getByTestId("token-row-priced").getByTestId("token-used")).toContainText(/\$0\.\d+/);

    await console.open("/console");
    await expect(page.getByTestId("models-known")).toContainText("gpt-test");
    await expect(page.getByTestId("models-known")).not.toContainText("gpt-tset");
    await expect(page.getByTestId("models-unknown")).toContainText("gpt-tset");
    await expect(page.getByTestId("usage-by-channel")).toContainText("Loopback OpenAI");
    await expect(page.getByTestId("usage-by-channel").getByRole("row").filter({ hasText: "Loopback OpenAI" })).toContainText(/\$0\.\d+/);
    await expect(page.getByTestId("usage-by-token")).toContainText("priced");
  });

  test("unknown API paths answer JSON in the caller's format with the right base URL", async ({ page, deployment }) => {
    const noPrefix = await page.request.post(`${deployment.gateway.url}/chat/completions`, { data: { model: "x", messages: [] } });
    expect(noPrefix.status()).toBe(404);
    expect(noPrefix.headers()["content-type"]).toContain("application/json");
    expect((await noPrefix.json()).error.message).toContain("/v1/chat/completions");
    const messages = await page.request.post(`${deployment.gateway.url}/messages`, { data: {} });
    const anthropic = await messages.json();
    expect(anthropic.type).toBe("error");
    expect(anthropic.error.message).toContain("/v1/messages");
    const unknown = await page.request.get(`${deployment.gateway.url}/v1/no-such-endpoint`);
    expect(unknown.status()).toBe(404);
    expect((await unknown.json()).error).toBeTruthy();
  });
});

test.describe("playground and account", () => {
  test("an error reply stays in place and is not sent again; the inspector says why nothing went upstream", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.createToken("pg mock only", { models: ["mock-chat"] });
    const playground = console.playground();
    await playground.open();
    await playground.chatAs("Token: pg mock only");
    await playground.chooseModel("gpt-test");
    await playground.send("this one is refused");
    await expect(playground.lastReply().getByRole("alert")).toContainText("not allowed");
    await expect(page.getByTestId("no-upstream-call")).toContainText("HTTP 403");

    await playground.chooseModel("mock-chat");
    await playground.send("this one works");
    await expect(playground.lastReply()).toContainText('You said: "this one works"');
    // The failed exchange is still on screen...
    await expect(page.getByTestId("assistant-message")).toHaveCount(2);
    await expect(page.getByTestId("assistant-message").first().getByRole("alert")).toContainText("not allowed");
    await expect(page.getByTestId("user-message").first()).toHaveText("this one is refused");
    // ...but not in the conversation sent.
    await expect(page.getByTestId("sent-request")).toContainText("this one works");
    await expect(page.getByTestId("sent-request")).not.toContainText("this one is refused");
  });

  test("a stopped reply shows the tokens the gateway counted", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const playground = console.playground();
    await playground.open();
    await playground.chooseModel("mock-chat");
    // A long message: the mock echoes it a word at a time, so the reply streams for seconds.
    await playground.send(
      "please stop me, this is a long message so the mock echoes it word by word for several seconds and Stop is clicked while the reply is still streaming on a busy machine",
    );
    await expect(playground.lastReply()).toContainText("gateway's");
    await playground.stop();
    const stats = page.getByTestId("reply-stats").last();
    await expect(stats).toContainText("Stopped");
    await expect(stats).toContainText(/\d+ in · \d+ out tokens/);
  });

  test("on a phone the chat comes before the settings; the default model is a healthy one", async ({ console, page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.playground().open();
    const message = await page.getByLabel("Message", { exact: true }).boundingBox();
    const model = await page.getByLabel("Model", { exact: true }).boundingBox();
    expect(message!.y).toBeLessThan(model!.y);
    expect(message!.y + message!.height).toBeLessThanOrEqual(844);
    // The fixture's real upstream answers; the broken channel's model is never the default.
    await expect(page.getByLabel("Model", { exact: true })).not.toHaveValue(/broken-model|another-model/);
  });

  test("anyone changes their own password; the new one signs in, the old one no longer does", async ({ console, page, deployment }) => {
    const created = await deployment.gateway.admin("POST", "/api/admin/users", { email: "changer@example.com", password: "first-password", role: "user" });
    expect(created.status).toBe(201);
    await console.signIn("changer@example.com", "first-password");
    await page.getByRole("link", { name: /changer@example\.com/ }).click();
    const form = page.getByRole("form", { name: "Change password" });
    await form.getByLabel("Current password").fill("not-the-password");
    await form.getByLabel("New password", { exact: true }).fill("second-password");
    await form.getByLabel("Confirm new password").fill("second-password");
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByRole("alert")).toContainText("current password is not right");
    await form.getByLabel("Current password").fill("first-password");
    await form.getByRole("button", { name: "Change password" }).click();
    await expect(form.getByRole("status")).toContainText("Password changed");
    // Still signed in here, with the new session.
    await console.open("/console/tokens");
    await expect(page.getByRole("heading", { name: "Tokens" })).toBeVisible();
    await page.getByRole("button", { name: "Sign out" }).click();
    await console.attemptSignIn("changer@example.com", "first-password");
    await expect(page.getByText("Wrong email or password.")).toBeVisible();
    await console.signIn("changer@example.com", "second-password");
  });
});

test.describe("limit windows", () => {
  test("a window added in the token form caps the API, and the form shows its use as a bar", async ({ console, page, deployment }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const key = await console.createToken("windowed");
    const row = page.getByTestId("token-row-windowed");
    await row.getByRole("button", { name: "Edit" }).click();
    let form = page.getByRole("form", { name: "Edit token windowed" });
    await form.getByRole("button", { name: "Add window" }).click();
    const window = form.getByLabel("Window 1");
    await window.getByLabel("Window", { exact: true }).fill("1h");
    await window.getByLabel("Requests").fill("2");
    await form.getByRole("button", { name: "Save token" }).click();
    await expect(page.getByRole("status")).toContainText("Saved");
    await expect(row.getByTestId("token-limits")).toContainText("1h: 2 requests");

    const client = new OpenAI({ apiKey: key, baseURL: `${deployment.gateway.url}/v1`, maxRetries: 0 });
    const ask = () => client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "hi" }] });
    await ask();
    await ask();
    await expect(ask()).rejects.toMatchObject({ status: 429, code: "limit_window_exceeded" });

    await page.reload();
    await row.getByRole("button", { name: "Edit" }).click();
    form = page.getByRole("form", { name: "Edit token windowed" });
    const meter = form.getByRole("meter", { name: "1h requests" });
    await expect(meter).toHaveAttribute("aria-valuenow", "2");
    await expect(form.getByLabel("Window 1")).toContainText("2 of 2 requests");

    // Admins see each store's retention and row count on the dashboard.
    await console.open("/console");
    const storage = page.getByTestId("storage-retention");
    await expect(storage.getByRole("row", { name: /Request logs/ })).toContainText("30d");
    await expect(storage.getByRole("row", { name: /Request logs/ })).toContainText(/\d/);
    await expect(storage.getByRole("row", { name: /Stored responses/ })).toContainText("RESPONSE_RETENTION");
    await expect(storage.getByRole("row", { name: /Playground captures/ })).toContainText("7d");
  });

  test("an admin gives a user's console sessions a limit window from the Users page", async ({ console, page, deployment }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const created = await fetch(`${deployment.gateway.url}/api/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${deployment.gateway.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "windowed@example.com", password: "windowed-password" }),
    });
    const user = (await created.json()) as { id: string };
    await console.open("/console/users");
    const row = page.getByTestId("user-row-windowed@example.com");
    await row.locator("summary").click();
    const form = row.getByRole("form", { name: "Session limits" });
    await form.getByRole("button", { name: "Add window" }).click();
    await form.getByLabel("Window 1").getByLabel("Window", { exact: true }).fill("week");
    await form.getByLabel("Window 1").getByLabel("Tokens").fill("50000");
    await form.getByRole("button", { name: "Save limits" }).click();
    await expect(form.getByText("Saved")).toBeVisible();
    const shown = await fetch(`${deployment.gateway.url}/api/admin/users/${user.id}`, { headers: { authorization: `Bearer ${deployment.gateway.adminKey}` } });
    const body = (await shown.json()) as { limits: unknown; windows: { window: string }[] };
    expect(body.limits).toEqual([{ window: "week", tokens: 50000 }]);
    expect(body.windows[0]?.window).toBe("week");
  });
});
