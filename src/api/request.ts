/**
 * The helpers of request schemas: a field with a default, a bounded list, a JSON body, the
 * `Idempotency-Key` header. The build's request compiler knows the first two by their registries.
 */
import { schema, z } from "../lazy-schema";

/**
 * An optional request field with a default. Written as optional-then-filled rather than zod's
 * `.default()`: the document then says the field may be left out, instead of listing a `default`
 * that client generators (openapi-typescript) read as "always present" and so demand.
 */
export const withDefault = <T extends z.ZodType>(schema: T, value: z.output<T>, description?: string) => {
  const field = schema
    .optional()
    .transform((v) => v ?? value)
    .openapi({ description: `${description ? `${description}. ` : ""}Default: ${JSON.stringify(value)}` });
  WITH_DEFAULTS.set(field, value);
  return field;
};

/** The default of each field `withDefault` made: the request compiler knows what its transform does. */
export const WITH_DEFAULTS = new WeakMap<z.ZodType, unknown>();

/**
 * An array of at most `max` elements whose length is checked before any element is: zod validates
 * every element first and counts after, so a million elements where a hundred are allowed would cost a
 * million validations and as many problems. Refused whole instead, with zod's own issue and message.
 * (The document is the same as for `z.array(element).min(min).max(max)`.)
 */
export const listOf = <T extends z.ZodType>(element: T, max: number, min?: { length: number; message?: string }) => {
  const list = z.preprocess(
    (value, ctx) => {
      if (!Array.isArray(value) || value.length <= max) return value;
      ctx.issues.push({ code: "too_big", origin: "array", maximum: max, inclusive: true, input: value });
      return z.NEVER;
    },
    min ? z.array(element).min(min.length, min.message).max(max) : z.array(element).max(max),
  );
  LISTS.add(list);
  return list;
};

/** The arrays `listOf` made: the request compiler knows what their preprocess does. */
export const LISTS = new WeakSet<z.ZodType>();

/** Request bodies are always validated; an empty body validates as `{}`. */
export const jsonBodyOf = <T extends z.ZodType>(schema: T, sample: unknown) => ({
  required: true,
  content: { "application/json": { schema, example: sample } },
});

/** The `Idempotency-Key` request header of every POST and PUT under /financing/v1 (CONTRACT 1). */
export const IdempotencyHeaders = schema(() =>
  z.object({
    "Idempotency-Key": z.string().min(1).max(255).optional().openapi({
      description:
        "Makes the request safe to retry: the same key with the same request within 24 hours answers the first answer again (`Idempotent-Replayed: true`) without doing the work twice.",
      example: "order-2026-000123-send-1",
    }),
  }),
);
