import type { z } from "@hono/zod-openapi";

/**
 * A schema built on its first use and kept. A cold isolate's first request builds only what its route
 * validates: a module of schemas, and the responses they describe, cost nothing until then (zod builds
 * every schema with its methods, about as costly as the rest of the Worker's start: bench/tried.md).
 * The same call always answers the same schema, so the document refers to it by name.
 */
export function schema<T extends z.ZodType>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

/** The type a lazily built schema (`schema()`) parses to. */
export type Infer<T extends () => z.ZodType> = z.infer<ReturnType<T>>;
