import { test as base } from "@playwright/test";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY, type FakeUpstream } from "../helpers/fake-openai-upstream";
import { startGateway, type Gateway } from "../helpers/start-gateway";
import { ConsolePages } from "./pages/console-pages";

// One real gateway (with a loopback OpenAI-compatible upstream behind a channel) per
// worker; each test gets page objects bound to it.

export const ADMIN = { email: "admin@example.com", password: "e2e-password-123" };

export interface Deployment {
  gateway: Gateway;
  upstream: FakeUpstream;
}

export const test = base.extend<{ console: ConsolePages }, { deployment: Deployment }>({
  deployment: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern, and this one has none
    async ({}, use) => {
      const upstream = await startFakeOpenAIUpstream();
      const gateway = await startGateway({ ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, MOCK_STREAM_DELAY_MS: "60" });
      const channel = await gateway.admin("POST", "/api/admin/channels", {
        name: "Loopback OpenAI",
        type: "openai",
        baseUrl: upstream.baseUrl,
        apiKey: UPSTREAM_API_KEY,
        models: ["gpt-test"],
        modelMap: { "gpt-test": "fake-upstream-model" },
      });
      if (channel.status !== 201) throw new Error(JSON.stringify(channel.body));
      await use({ gateway, upstream });
      await gateway.stop();
      await upstream.close();
    },
    { scope: "worker" },
  ],
  console: async ({ page, deployment }, use) => {
    await use(new ConsolePages(page, deployment.gateway.url));
  },
});

export { expect } from "@playwright/test";
