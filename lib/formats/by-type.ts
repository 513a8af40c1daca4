import { z } from "zod";

/** Marks the issue of the catch-all member refusing a known type: it says less than the known member's own. */
export const KNOWN_TYPE = "knownType";

type Typed = z.ZodObject<{ type: z.ZodLiteral<string> | z.ZodEnum | z.ZodOptional<z.ZodLiteral<string>> }>;

/**
 * A union of objects told apart by `type`: the member is found by its type (not by trying
 * each in turn, which on an agent's long history is most of the validation's work), a
 * known type is held to its fields, and any other type passes through for the upstreams
 * that know it. A member whose type is optional also takes objects without one.
 */
export function byType<const Members extends readonly [Typed, ...Typed[]]>(members: Members) {
  const known = new Set<unknown>(members.flatMap((member) => [...member.shape.type._zod.values!]));
  // `abort` keeps this member's refusal of a known type from hiding the known member's issue.
  const other = z.looseObject({ type: z.string().refine((type) => !known.has(type), { abort: true, params: { [KNOWN_TYPE]: true } }) });
  return z.union([z.discriminatedUnion("type", members as never as Members), other]);
}
