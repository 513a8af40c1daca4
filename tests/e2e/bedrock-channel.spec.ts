import { BEDROCK_CREDENTIALS, BEDROCK_REGION, startFakeBedrockUpstream, type FakeBedrock } from "../helpers/fake-bedrock-upstream";
import { ADMIN, expect, test } from "./fixtures";

// An administrator adds a Bedrock channel in the console: the form shows the type's region
// field with its help and what the key takes, fetches the region's models, and saves only
// after one signed test request passed.

let fake: FakeBedrock;

test.beforeAll(async () => {
  fake = await startFakeBedrockUpstream();
});

test.afterAll(async () => {
  await fake?.close();
});

test("an admin adds a Bedrock channel: region and key explained, models fetched, the save checked with a signed request", async ({ console, page, deployment }) => {
  deployment.gateway.secrets.add(BEDROCK_CREDENTIALS.secretAccessKey);
  await console.signIn(ADMIN.email, ADMIN.password);
  await console.open("/console/channels");
  await page.getByRole("button", { name: "Add channel" }).click();
  const form = page.getByRole("form", { name: "Add channel" });
  await form.getByLabel("Type").selectOption("bedrock");
  await expect(form.getByLabel("AWS region")).toBeVisible();
  await expect(form.getByText(/The region where the models are enabled/)).toBeVisible();
  await expect(form.getByText(/AWS credentials as JSON/)).toBeVisible();
  await expect(form.getByText("Empty means https://bedrock-runtime.{region}.amazonaws.com.")).toBeVisible();

  await form.getByLabel("Name").fill("Bedrock EU");
  await form.getByLabel("Base URL").fill(fake.baseUrl);
  await form.getByLabel("API key").fill(JSON.stringify(BEDROCK_CREDENTIALS));
  await form.getByLabel("AWS region").fill(BEDROCK_REGION);
  await form.getByRole("button", { name: "Fetch models from the upstream" }).click();
  await expect(form.getByRole("group", { name: "Upstream models" })).toContainText("us.anthropic.claude-sonnet-4-5-20250929-v1:0");
  await form.getByRole("checkbox", { name: "us.anthropic.claude-sonnet-4-5-20250929-v1:0" }).check();
  await form.getByRole("button", { name: "Save channel" }).click();
  await expect(page.getByTestId("channel-row-Bedrock EU")).toBeVisible();
  const saved = fake.received.at(-1)!;
  expect(saved.operation).toBe("invoke");
  expect(saved.auth).toBe("sigv4");
  expect(fake.rejected.filter((reason) => !reason.startsWith("IncompleteSignatureException"))).toEqual([]);
});
