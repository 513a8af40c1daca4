import OpenAI from "openai";
import { ADMIN, expect, test } from "./fixtures";

test.describe("console", () => {
  test("sign-in refuses a wrong password with a clear message, then signs in", async ({ console, page }) => {
    await console.attemptSignIn(ADMIN.email, "not-the-password");
    await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
    await expect(page).toHaveURL(/\/login$/);
    await console.signIn(ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/console$/);
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
  });

  test("a token created in the console works with the openai SDK", async ({ console, page, deployment }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const key = await console.createToken("e2e laptop");
    expect(key).toMatch(/^sk-[A-Za-z0-9]{48}$/);
    await expect(page.getByTestId("token-row-e2e laptop")).toContainText("Active");
    const client = new OpenAI({ apiKey: key, baseURL: `${deployment.gateway.url}/v1`, maxRetries: 0 });
    const reply = await client.chat.completions.create({ model: "mock-chat", messages: [{ role: "user", content: "from the SDK" }] });
    expect(reply.choices[0]!.message.content).toContain('You said: "from the SDK"');

    await page.getByTestId("token-row-e2e laptop").getByRole("button", { name: "Disable" }).click();
    await expect(page.getByTestId("token-row-e2e laptop")).toContainText("Disabled");
    await expect(client.models.list()).rejects.toThrow(/disabled/);
  });

  test("the Playground streams from the mock and from a loopback upstream, and shows the upstream exchange", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const playground = console.playground();
    await playground.open();
    await playground.chooseModel("mock-chat");
    await playground.send("hello playground");
    await expect(playground.lastReply()).toContainText('You said: "hello playground"');
    await expect(page.getByTestId("reply-stats").last()).toContainText("out tokens");

    await playground.chooseModel("gpt-test");
    await playground.send("through the fake");
    await expect(playground.lastReply()).toContainText("Echo: through the fake");
    await expect(page.getByTestId("upstream-request")).toContainText('"model": "fake-upstream-model"');
    await expect(page.getByTestId("upstream-request")).toContainText("[redacted]");
    await expect(page.getByTestId("upstream-response")).toContainText("HTTP 200");
  });

  test("Stop ends a stream early and the partial answer stays", async ({ console, page }) => {
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
    await expect(page.getByTestId("reply-stats").last()).toContainText("Stopped");
    await expect(playground.lastReply()).not.toContainText("without an upstream account");
    await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
  });

  test("chatting as a token applies its allowlist and shows the refusal plainly", async ({ console }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.createToken("mock only", { models: ["mock-chat"] });
    const playground = console.playground();
    await playground.open();
    await playground.chatAs("Token: mock only");
    await playground.chooseModel("gpt-test");
    await playground.send("not allowed");
    await expect(playground.lastReply().getByRole("alert")).toContainText("not allowed to use the model 'gpt-test'");
  });

  test("requests appear in Logs and open their detail", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/logs");
    await page.getByLabel("Model").selectOption("gpt-test");
    await page.getByLabel("Status").selectOption("2xx");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page).toHaveURL(/status=2xx/);
    const rows = page.locator("tbody tr");
    await expect(rows.first()).toContainText("gpt-test");
    await rows.first().getByRole("link").click();
    await expect(page.getByRole("heading", { name: "Request detail" })).toBeVisible();
    await expect(page.getByText("/v1/chat/completions")).toBeVisible();
    await expect(page.getByText("Loopback OpenAI (openai)")).toBeVisible();
  });

  test("an admin tests a channel from the Channels page", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/channels");
    const row = page.getByTestId("channel-row-Loopback OpenAI");
    await row.getByRole("button", { name: "Test" }).click();
    await expect(page.getByRole("status")).toContainText("Passed");
    await expect(page.getByRole("status")).toContainText("Echo: Reply with the single word: pong");
  });

  test("the API reference lists every endpoint from the OpenAPI document", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    await console.open("/console/api");
    await expect(page.getByTestId("api-OpenAI")).toContainText("/v1/responses");
    await expect(page.getByTestId("api-OpenAI")).toContainText("/v1/audio/transcriptions");
    await expect(page.getByTestId("api-Gemini")).toContainText(":streamGenerateContent");
    const document = await (await page.request.get(new URL("/openapi.json", page.url()).toString())).json();
    expect(document.openapi).toBe("3.1.0");
  });

  test("the Playground also tries embeddings, images and speech through the same endpoints", async ({ console, page }) => {
    await console.signIn(ADMIN.email, ADMIN.password);
    const playground = console.playground();
    await playground.open();
    await playground.chooseModel("gpt-test");
    await playground.chooseMode("Embeddings");
    await playground.run("hello\nworld");
    await expect(page.getByTestId("embedding-result")).toContainText("2 vectors");
    await expect(page.getByTestId("embedding-result")).toContainText("4 dimensions");
    await playground.chooseMode("Images");
    await playground.run("a lighthouse");
    await expect(page.getByTestId("image-result").locator("img")).toHaveCount(1);
    await playground.chooseMode("Speech");
    await playground.run("Hello there");
    await expect(page.getByTestId("speech-result")).toContainText("audio/mpeg");
    await playground.chooseMode("Chat");
    await expect(page.getByLabel("Message", { exact: true })).toBeVisible();
  });
});
