import type { z } from "zod";
import { GatewayError } from "@/lib/canonical/gateway-error";
import { KNOWN_TYPE } from "./by-type";
import { TOO_MANY_MESSAGES } from "./message-list";

/** `messages[0].content` from a zod path. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let result = "";
  for (const segment of path) {
    if (typeof segment === "number") result += `[${segment}]`;
    else result += result === "" ? String(segment) : `.${String(segment)}`;
  }
  return result;
}

/** Turns the first zod issue into a 400 that names the parameter, as vendors do; a conversation past MAX_REQUEST_MESSAGES is a 413. */
export function validationError(error: z.ZodError): GatewayError {
  const tooMany = findTooManyMessages(error.issues);
  if (tooMany) {
    const param = formatIssuePath(tooMany.path);
    return new GatewayError("request_too_large", `'${param}' ${tooMany.message}`, { param, code: "too_many_messages" });
  }
  const issue = pickIssue(error.issues);
  const param = formatIssuePath(issue.path);
  // zod reports the received type in its message; only a value that is absent is "missing".
  const missing = issue.code === "invalid_type" && /received undefined$/.test(issue.message);
  const message = missing ? `Missing required parameter: '${param}'.` : param ? `Invalid value for '${param}': ${issue.message}` : issue.message;
  return new GatewayError("invalid_request", message, { param: param || null, code: "invalid_value" });
}

// Union failures nest the useful message down their branches: each branch is followed to
// the issue it ends in, and the deepest one wins (the earlier branch on a tie). A branch
// that only refused a type another branch knows (by-type.ts), or found no member for its
// type, says less than a branch that knows the value: picked last.
function pickIssue(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): z.core.$ZodIssue {
  const first = issues[0]!;
  const path = [...prefix, ...first.path];
  if (first.code === "invalid_union" && first.errors.length > 0) {
    const ends = first.errors.filter((branch) => branch.length > 0).map((branch) => pickIssue(branch, path));
    const telling = ends.filter((issue) => !(issue.code === "custom" && issue.params?.[KNOWN_TYPE]) && !(issue.code === "invalid_union" && issue.errors.length === 0));
    const deepest = (telling.length > 0 ? telling : ends).reduce<z.core.$ZodIssue | undefined>(
      (best, issue) => (!best || issue.path.length > best.path.length ? issue : best),
      undefined,
    );
    if (deepest) return deepest;
  }
  return { ...first, path } as z.core.$ZodIssue;
}

/** A conversation over MAX_REQUEST_MESSAGES, wherever it sits (in a union's branch too), with its full path. */
function findTooManyMessages(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): z.core.$ZodIssue | undefined {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "custom" && issue.params?.[TOO_MANY_MESSAGES]) return { ...issue, path };
    if (issue.code === "invalid_union") {
      for (const branch of issue.errors) {
        const found = findTooManyMessages(branch, path);
        if (found) return found;
      }
    }
  }
  return undefined;
}
