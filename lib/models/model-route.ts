import { z } from "zod";
import { strategySchema, type Strategy } from "@/lib/routing/pick-channels";

/** A public model name as the hot path sees it: from the ModelRoute table, cached per process. */
export interface ModelRoute {
  name: string;
  /** Other public models, in the order they are tried when this one cannot serve. */
  fallbacks: string[];
  strategy: Strategy;
  contextWindow: number | null;
}

export const MAX_FALLBACKS = 10;

const modelName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\u0000-\u001f\u007f]+$/, "no control characters");

const routeFields = {
  name: modelName,
  fallbacks: z.array(modelName).max(MAX_FALLBACKS),
  strategy: strategySchema,
  contextWindow: z.number().int().min(1).max(100_000_000).nullable(),
};

export const createModelSchema = z.strictObject({
  ...routeFields,
  fallbacks: routeFields.fallbacks.optional(),
  strategy: routeFields.strategy.optional(),
  contextWindow: routeFields.contextWindow.optional(),
});
export const updateModelSchema = z.strictObject(routeFields).partial();
export type CreateModelInput = z.infer<typeof createModelSchema>;
export type UpdateModelInput = z.infer<typeof updateModelSchema>;

/** A stored row's columns as a route; a column that does not parse falls back to the default (never a failed request). */
export function toModelRoute(row: { name: string; fallbacks: unknown; strategy: string; contextWindow: number | null }): ModelRoute {
  return {
    name: row.name,
    fallbacks: z.array(z.string()).catch([]).parse(row.fallbacks),
    strategy: strategySchema.catch("weighted").parse(row.strategy),
    contextWindow: row.contextWindow,
  };
}
