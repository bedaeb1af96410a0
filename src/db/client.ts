/**
 * The database of the Worker: one Drizzle instance per D1 binding, each statement sent to the D1 session
 * of the request that runs it, and queries prepared once and kept. What reaches into Drizzle's
 * internals to make the hot paths cheap (the relational row mapper, prepared inserts and updates,
 * conditions taken apart, the statements built ahead of time) lives fenced in src/db/compiler/. The
 * client underneath, which sends each statement to the request's D1 session, is src/db/routing.ts.
 */
import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../config";
import { routedClient } from "./routing";
import * as schema from "./schema";

export { type D1Client, withD1Session } from "./session";

export type Database = ReturnType<typeof open>;
const open = (client: D1Database) => drizzle(client, { schema });

/**
 * One Drizzle instance per D1 binding for the life of the isolate: creating it walks the whole schema,
 * and prepared queries (see `prepared`) live on it. The binding is the key, so a test's or a counting
 * wrapper's own binding gets its own instance.
 */
const instances = new WeakMap<D1Database, Database>();

export function database(env: Env): Database {
  let db = instances.get(env.DB);
  if (!db) {
    db = open(routedClient(env));
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
