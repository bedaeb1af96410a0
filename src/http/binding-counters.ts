import { createMiddleware } from "hono/factory";
import type { Env } from "../config";
import type { HonoEnv } from "../env";

/**
 * Counting wrappers around D1 and the Durable Object namespace, switched on by COUNT_BINDINGS="true"
 * (benchmarks and tests only). Each response then reports `X-Count-D1-Round-Trips`,
 * `X-Count-D1-Statements` and `X-Count-DO-Calls`, so a claim like "one object call and only the
 * handler's own statements" is measured, not assumed, and `X-Count-D1-Shards`, the shards the request
 * sent statements to (src/db/shards.ts: the directory's is 0), so that "a partner's requests touch its
 * shard alone" is too. Off by default: the wrappers cost nothing then.
 */
interface Counts {
  roundTrips: number;
  statements: number;
  objectCalls: number;
  /** The shards statements went to. */
  shards: Set<number>;
}

const RAW = Symbol("raw statement");

function countingDatabase<T extends D1Database | D1DatabaseSession>(db: T, counts: Counts, shard: number): T {
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, prop, receiver) {
        if (prop === RAW) return target;
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop === "bind") return (...args: unknown[]) => statement(value.apply(target, args));
        if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
          return (...args: unknown[]) => {
            counts.roundTrips++;
            counts.statements++;
            counts.shards.add(shard);
            return value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
  return new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "prepare") return (query: string) => statement(target.prepare(query));
      // A request's D1 session (read replicas) is counted like the binding it came from.
      if (prop === "withSession") {
        return (constraint?: string) => countingDatabase((target as D1Database).withSession(constraint), counts, shard);
      }
      if (prop === "batch") {
        return (statements: D1PreparedStatement[]) => {
          counts.roundTrips++;
          counts.statements += statements.length;
          counts.shards.add(shard);
          // The proxies wrap real statements; D1 wants its own objects back.
          return target.batch(statements.map((s) => (s as unknown as { [RAW]: D1PreparedStatement })[RAW] ?? s));
        };
      }
      if (prop === "exec" && "exec" in target) {
        return (query: string) => {
          counts.roundTrips++;
          counts.statements++;
          counts.shards.add(shard);
          return target.exec(query);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function countingNamespace(namespace: Env["RATE_LIMITER"], counts: Counts): Env["RATE_LIMITER"] {
  return new Proxy(namespace, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (id: DurableObjectId) => {
        const stub = target.get(id);
        return new Proxy(stub, {
          get(s, method) {
            const call = Reflect.get(s, method);
            if (typeof call !== "function") return call;
            return (...args: unknown[]) => {
              counts.objectCalls++;
              // Not call.apply(): on an RPC stub that would be a remote method named "apply".
              return Reflect.apply(call, s, args);
            };
          },
        });
      };
    },
  });
}

export const countBindings = createMiddleware<HonoEnv>(async (c, next) => {
  if (!c.var.config.COUNT_BINDINGS) return next();
  const counts: Counts = { roundTrips: 0, statements: 0, objectCalls: 0, shards: new Set() };
  // Loaded only when counting: the Worker's start loads no database module (build/worker.ts refuses it).
  const { everyShard } = await import("../db/shards");
  const shards = Object.fromEntries(
    everyShard(c.env).map(({ shard, binding }) => [
      shard === 0 ? "DB" : `SHARD_${shard}`,
      countingDatabase(binding, counts, shard),
    ]),
  );
  c.env = { ...c.env, ...shards, RATE_LIMITER: countingNamespace(c.env.RATE_LIMITER, counts) };
  try {
    await next();
  } finally {
    c.header("X-Count-D1-Round-Trips", String(counts.roundTrips));
    c.header("X-Count-D1-Statements", String(counts.statements));
    c.header("X-Count-DO-Calls", String(counts.objectCalls));
    c.header("X-Count-D1-Shards", [...counts.shards].sort().join(","));
  }
});
