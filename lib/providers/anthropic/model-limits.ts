// Output-token ceilings of Claude models, for clamping max_tokens. Matched by prefix,
// longest first; unknown models are not clamped.
const MAX_OUTPUT_TOKENS: [prefix: string, limit: number][] = [
  ["claude-3-haiku", 4096],
  ["claude-3-opus", 4096],
  ["claude-3-sonnet", 4096],
  ["claude-3-5-haiku", 8192],
  ["claude-3-5-sonnet", 8192],
  ["claude-3-7-sonnet", 64000],
  ["claude-sonnet-4", 64000],
  ["claude-haiku-4", 64000],
  ["claude-opus-4-5", 64000],
  ["claude-opus-4-1", 32000],
  ["claude-opus-4", 32000],
];

export function maxOutputTokens(model: string): number | undefined {
  // Clouds name Claude with a prefix: `us.anthropic.claude-…` (Bedrock), an ARN ending so.
  const name = model.replace(/^.*anthropic\./, "");
  let best: [string, number] | undefined;
  for (const entry of MAX_OUTPUT_TOKENS) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}
