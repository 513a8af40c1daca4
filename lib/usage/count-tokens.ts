// Tokenizer-based estimates for upstreams that report no usage. The encoder tables are
// large, so they load on first use rather than at start-up.
type Encoder = { countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number };
let encoder: Encoder | undefined;
const NO_SPECIAL_TOKENS = new Set<string>();

export async function countTokens(text: string): Promise<number> {
  if (text === "") return 0;
  encoder ??= (await import("gpt-tokenizer/encoding/o200k_base")) as unknown as Encoder;
  // User text may contain special-token strings; count them as plain text.
  return encoder.countTokens(text, { disallowedSpecial: NO_SPECIAL_TOKENS });
}
