import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../config";
import * as schema from "./schema";

export type Database = ReturnType<typeof open>;

const open = (binding: D1Database) => drizzle(binding, { schema });

/**
 * One Drizzle instance per D1 binding for the life of the isolate: creating it walks the whole schema,
 * and prepared queries (see `prepared`) live on it. The binding is the key, so a test's or a counting
 * wrapper's own binding gets its own instance.
 */
const instances = new WeakMap<D1Database, Database>();

export function database(env: Env): Database {
  let db = instances.get(env.DB);
  if (!db) {
    db = open(env.DB);
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
