import type { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";

/** `messages[0].content` from a zod path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let result = "";
  for (const segment of path) {
    if (typeof segment === "number") result += `[${segment}]`;
    else result += result === "" ? String(segment) : `.${String(segment)}`;
  }
  return result;
}

/** Turns the first zod issue into a 400 that names the parameter, as vendors do. */
export function validationError(error: z.ZodError): GatewayError {
  const issue = pickIssue(error.issues);
  const param = formatIssuePath(issue.path);
  // zod reports the received type in its message; only a value that is absent is "missing".
  const missing = issue.code === "invalid_type" && /received undefined$/.test(issue.message);
  const message = missing
    ? `Missing required parameter: '${param}'.`
    : param
      ? `Invalid value for '${param}': ${issue.message}`
      : issue.message;
  return new GatewayError("invalid_request", message, { param: param || null, code: "invalid_value" });
}

// Union failures nest the useful message one level down; surface the deepest one.
function pickIssue(issues: z.core.$ZodIssue[]): z.core.$ZodIssue {
  const first = issues[0]!;
  if (first.code === "invalid_union" && first.errors.length > 0) {
    const candidates = first.errors.map((branch) => branch[0]).filter(Boolean) as z.core.$ZodIssue[];
    const deepest = candidates.sort((a, b) => b.path.length - a.path.length)[0];
    if (deepest) return { ...deepest, path: [...first.path, ...deepest.path] } as z.core.$ZodIssue;
  }
  return first;
}
