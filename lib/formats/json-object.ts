import { z } from "zod";

/**
 * A JSON object taken as it is (a tool's parameter schema, a call's arguments): checked
 * to be an object, not walked or copied key by key as `z.record` would, which on an
 * agent's dozens of tool schemas is most of the validation's work.
 */
export const jsonObject = z.custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), {
  message: "Invalid input: expected object",
});
