/**
 * The database of the Worker: one Drizzle instance per D1 binding, each statement sent to the D1 session
 * of the request that runs it, and queries prepared once and kept. What reaches into Drizzle's
 * internals to make the hot paths cheap (the relational row mapper, prepared inserts and updates,
 * conditions taken apart) lives fenced in src/db/compiler/.
 */
import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../config";
import { retryingRead } from "../transient";
import * as schema from "./schema";
import { requestSession } from "./session";

export { type D1Client, withD1Session } from "./session";

export type Database = ReturnType<typeof open>;
const open = (client: D1Database) => drizzle(client, { schema });

/**
 * A client for Drizzle that resolves the target per statement: `prepare` answers a statement that
 * picks the current session when it is bound (Drizzle binds every statement before it runs it, even
 * without parameters when it runs alone), and `batch` resolves the ones Drizzle passes unbound.
 */
function routingClient(binding: D1Database): D1Database {
  const target = () => requestSession.getStore()?.client ?? binding;
  const reads = () => requestSession.getStore()?.reads === true;
  class Routed {
    constructor(readonly query: string) {}
    bind(...values: unknown[]) {
      const statement = target()
        .prepare(this.query)
        .bind(...values);
      return reads() ? retrying(statement) : statement;
    }
  }
  const resolve = (s: D1PreparedStatement) =>
    s instanceof Routed ? target().prepare(s.query) : ((s as Retrying)[UNWRAPPED] ?? s);
  return {
    prepare: (query: string) => new Routed(query) as unknown as D1PreparedStatement,
    batch: (statements: D1PreparedStatement[]) => {
      const run = () => target().batch(statements.map(resolve));
      return reads() ? retryingRead(run) : run();
    },
    exec: (query: string) => binding.exec(query),
  } as unknown as D1Database;
}

const UNWRAPPED = Symbol("statement");
type Retrying = D1PreparedStatement & { [UNWRAPPED]?: D1PreparedStatement };

/** A bound statement of an idempotent read whose executions are retried after transient failures. */
function retrying(statement: D1PreparedStatement): D1PreparedStatement {
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === UNWRAPPED) return target;
      const value = Reflect.get(target, prop, target);
      if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
        return (...args: unknown[]) => retryingRead(() => value.apply(target, args));
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * One Drizzle instance per D1 binding for the life of the isolate: creating it walks the whole schema,
 * and prepared queries (see `prepared`) live on it. The binding is the key, so a test's or a counting
 * wrapper's own binding gets its own instance.
 */
const instances = new WeakMap<D1Database, Database>();

export function database(env: Env): Database {
  let db = instances.get(env.DB);
  if (!db) {
    db = open(routingClient(env.DB));
    instances.set(env.DB, db);
  }
  return db;
}

/**
 * A query built once per database and reused with new placeholder values: building SQL through
 * Drizzle's builders costs more CPU than the D1 call itself on a hot path like reading an application.
 */
export function prepared<T>(build: (db: Database) => T): (db: Database) => T {
  const cache = new WeakMap<Database, T>();
  return (db) => {
    let query = cache.get(db);
    if (query === undefined) {
      query = build(db);
      cache.set(db, query);
    }
    return query;
  };
}
