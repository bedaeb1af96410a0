import type * as ZodOpenApi from "@hono/zod-openapi";

/**
 * zod (with its OpenAPI extension), loaded on demand. A module of schemas imports `z` from here rather
 * than from "@hono/zod-openapi", so that importing it evaluates nothing of zod: zod's own module is most
 * of what a cold GET costs (bench/tried.md), and only what builds a schema needs it. A request checked
 * by validators the build compiled (build/request-compiler.ts) needs zod only to word a refusal.
 * Whatever builds a schema (serving a route, the document, the tests) awaits `loadZod()` first; `z` used
 * before that throws, naming the fix; so does what runs zod outside a route's validation (a list's
 * filters: `parsePageRequest`). A module that builds a schema when it is loaded
 * (src/routes/notifications/webhook.ts, for the document alone) imports zod itself.
 */
let loaded: typeof ZodOpenApi | undefined;

/** zod and @hono/zod-openapi, loaded once. */
export async function loadZod(): Promise<typeof ZodOpenApi> {
  loaded ??= await import("@hono/zod-openapi");
  return loaded;
}

/** zod's `z`, valid once `loadZod()` has resolved. */
export const z = new Proxy({} as typeof ZodOpenApi.z, {
  get(_, key) {
    if (!loaded) throw new Error(`z.${String(key)} before loadZod(): await loadZod() before building a schema`);
    return loaded.z[key as keyof typeof ZodOpenApi.z];
  },
});

/** zod's types, under the same name as the value. */
export declare namespace z {
  export type ZodType = ZodOpenApi.z.ZodType;
  export type infer<T extends ZodType> = ZodOpenApi.z.infer<T>;
  export type output<T extends ZodType> = ZodOpenApi.z.output<T>;
}

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
