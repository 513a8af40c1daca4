/** Why generation stopped, independent of any vendor's vocabulary. */
export type FinishReason =
  | "stop" // natural end
  | "stop-sequence" // a caller-supplied stop sequence matched
  | "length" // hit the output token limit
  | "tool-calls"
  | "content-filter"
  | "error"
  | "other";
