import { DurableObject } from "cloudflare:workers";

/**
 * The names of a class's public methods (TypeScript's `private` ones are not keys of its type), but for
 * the type-only brand of `DurableObject` (`__DURABLE_OBJECT_BRAND: never`).
 */
type MethodName<T> = {
  [K in keyof T]: K extends `__${string}` ? never : T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T] &
  string;

/**
 * A Durable Object class for the Worker's entry whose code is imported by its object's first event
 * rather than by the Worker's start. The entry must export every Durable Object class, and evaluating
 * the rate-limit and mailbox objects' code was a sixth of the startup's bytes (bench/tried.md), paid by
 * every isolate of the Worker, also those that never run an object.
 *
 * The class made here loads `Target` while its constructor holds every event back
 * (`blockConcurrencyWhile`), then hands each call of `methods` to it as it is, synchronously: a method
 * that ran to completion without an await still does, so its reads and writes of the object's storage
 * stay one atomic step. `methods` names every public method of `Target`, each `true` (the type checker
 * says which one is missing): a method left out would not be callable by RPC, nor an alarm run.
 */
export function lazyObject<Env, Target extends DurableObject<Env>>(
  load: () => Promise<new (ctx: DurableObjectState, env: Env) => Target>,
  methods: Record<MethodName<Target>, true>,
): new (
  ctx: DurableObjectState,
  env: Env,
) => DurableObject<Env> & Pick<Target, MethodName<Target>> {
  class Lazy extends DurableObject<Env> {
    object: Target | undefined;
    constructor(ctx: DurableObjectState, env: Env) {
      super(ctx, env);
      void ctx.blockConcurrencyWhile(async () => {
        this.object = new (await load())(ctx, env);
      });
    }
  }
  for (const name of Object.keys(methods)) {
    Object.defineProperty(Lazy.prototype, name, {
      value(this: Lazy, ...args: unknown[]) {
        const object = this.object as unknown as Record<string, (...args: unknown[]) => unknown>;
        return object[name]!(...args);
      },
    });
  }
  return Lazy as never;
}
