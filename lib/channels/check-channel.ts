import { providers } from "@/lib/providers/registry";
import type { Channel } from "@/lib/routing/channel";
import type { Runtime } from "@/lib/runtime/runtime-types";
import { versionSuggestion } from "@/lib/providers/base-url";
import { probeChannel, type ChannelTestResult } from "./test-channel";

export interface ChannelCheck {
  ok: boolean;
  /** What is wrong, in words for the administrator. */
  error?: string;
  /** A base URL that answered where the given one did not. */
  suggestion?: string;
  result?: ChannelTestResult;
}

/**
 * Checks a channel before it is saved: one tiny request through the real conversion
 * path. When it fails and the base URL has no version segment, the same request with
 * the provider's segment added tells whether that was the mistake.
 */
export async function checkChannelDraft(runtime: Runtime, draft: Channel): Promise<ChannelCheck> {
  if (!providers[draft.type].probe || draft.type === "mock" || draft.models.length === 0) return { ok: true };
  const result = await probeChannel(runtime, draft);
  if (result.ok) return { ok: true, result };
  const candidate = versionSuggestion(draft.type, draft.baseUrl);
  if (candidate) {
    const retry = await probeChannel(runtime, { ...draft, baseUrl: candidate });
    if (retry.ok) {
      const status = result.upstreamStatus ? `HTTP ${result.upstreamStatus}` : "an error";
      return {
        ok: false,
        error: `The upstream answered ${status} at ${draft.baseUrl}, but answered at ${candidate}: did you mean ${candidate}?`,
        suggestion: candidate,
        result,
      };
    }
  }
  return { ok: false, error: `The test request for '${result.model}' failed: ${result.error}`, result };
}
