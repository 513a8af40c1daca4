import type { Usage } from "@/lib/canonical/usage";

/** Gemini's candidate count excludes thoughts; its prompt count includes cached tokens. */
export function renderGeminiUsage(usage: Usage | undefined) {
  const prompt = usage?.promptTokens ?? 0;
  const completion = usage?.completionTokens ?? 0;
  const thoughts = usage?.reasoningTokens ?? 0;
  const metadata: Record<string, number> = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, completion - thoughts),
    totalTokenCount: prompt + completion,
  };
  if (thoughts) metadata.thoughtsTokenCount = thoughts;
  if (usage?.cachedTokens) metadata.cachedContentTokenCount = usage.cachedTokens;
  return metadata;
}

export function parseGeminiUsage(raw: unknown): Usage | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const usage = raw as Record<string, unknown>;
  const number = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
  const thoughts = number(usage.thoughtsTokenCount);
  return {
    promptTokens: number(usage.promptTokenCount) + number(usage.toolUsePromptTokenCount),
    completionTokens: number(usage.candidatesTokenCount) + thoughts,
    cachedTokens: number(usage.cachedContentTokenCount) || undefined,
    reasoningTokens: thoughts || undefined,
  };
}
