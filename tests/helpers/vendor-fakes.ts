import assert from "node:assert/strict";
import { ANTHROPIC_KEY, startFakeAnthropicUpstream } from "./fake-anthropic-upstream";
import { GEMINI_KEY, startFakeGeminiUpstream } from "./fake-gemini-upstream";
import { startFakeOpenAIUpstream, UPSTREAM_API_KEY } from "./fake-openai-upstream";
import type { Gateway } from "./start-gateway";

/** One fake of each vendor, for tests that send the same request to every kind of upstream. */
export async function startVendorFakes() {
  return { anthropic: await startFakeAnthropicUpstream(), openai: await startFakeOpenAIUpstream(), gemini: await startFakeGeminiUpstream() };
}
export type VendorFakes = Awaited<ReturnType<typeof startVendorFakes>>;

/** A channel on each fake, serving the models given for its type. */
export async function addVendorChannels(gateway: Gateway, fakes: VendorFakes, models: Record<keyof VendorFakes, string[]>): Promise<void> {
  for (const channel of [
    { type: "openai", baseUrl: fakes.openai.baseUrl, apiKey: UPSTREAM_API_KEY, models: models.openai },
    { type: "anthropic", baseUrl: fakes.anthropic.baseUrl, apiKey: ANTHROPIC_KEY, models: models.anthropic },
    { type: "gemini", baseUrl: fakes.gemini.baseUrl, apiKey: GEMINI_KEY, models: models.gemini },
  ]) {
    assert.equal((await gateway.admin("POST", "/api/admin/channels", { name: channel.type, ...channel })).status, 201);
  }
}

export async function closeVendorFakes(fakes: VendorFakes | undefined): Promise<void> {
  await Promise.all(Object.values(fakes ?? {}).map((fake) => fake.close()));
}
