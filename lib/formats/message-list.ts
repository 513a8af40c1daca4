import { z } from "zod";
import { env } from "@/lib/env";

/** Marks the issue of a conversation longer than MAX_REQUEST_MESSAGES: a 413 (validation-error.ts), not a 400. */
export const TOO_MANY_MESSAGES = "tooManyMessages";

/**
 * A request's conversation (messages, contents, input items), its length checked before any
 * item is validated: each costs microseconds to validate and convert, and a body under the
 * size limit can hold hundreds of thousands of tiny ones.
 */
export function messageList<List extends z.ZodArray>(list: List) {
  const limit = env.MAX_REQUEST_MESSAGES;
  return z
    .array(z.unknown())
    .refine((items) => items.length <= limit, {
      abort: true,
      params: { [TOO_MANY_MESSAGES]: true },
      error: (issue) =>
        `holds ${(issue.input as unknown[]).length.toLocaleString("en-US")} items; one request may hold at most ${limit.toLocaleString("en-US")} (the gateway's MAX_REQUEST_MESSAGES setting): shorten the conversation.`,
    })
    .pipe(list);
}

/** Whether a conversation of `count` items is within MAX_REQUEST_MESSAGES (one read without the schema). */
export function withinMessageLimit(count: number): boolean {
  return count <= env.MAX_REQUEST_MESSAGES;
}
