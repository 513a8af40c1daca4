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

// Union failures nest the useful message down their branches: follow the deepest branch,
// down to the issue itself. A branch that only refused the value with a check of its
// own (`refine`, such as "a type the other branch knows") says less than the branch
// that knows the value, so it is picked last.
function pickIssue(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): z.core.$ZodIssue {
  const first = issues[0]!;
  const path = [...prefix, ...first.path];
  if (first.code === "invalid_union" && first.errors.length > 0) {
    const branches = first.errors.filter((branch) => branch.length > 0);
    const telling = branches.filter((branch) => branch[0]!.code !== "custom");
    const deepest = (telling.length > 0 ? telling : branches).sort((a, b) => b[0]!.path.length - a[0]!.path.length)[0];
    if (deepest) return pickIssue(deepest, path);
  }
  return { ...first, path } as z.core.$ZodIssue;
}
