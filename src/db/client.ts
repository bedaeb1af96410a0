/**
 * The database of the Worker: one Drizzle instance per D1 binding, each statement sent to the D1 session
 * of the request that runs it. What reaches into Drizzle's internals to make the hot paths cheap (the
 * relational row mapper, conditions taken apart, the statements and the write tables built ahead of
 * time) lives fenced in src/db/compiler/. The client underneath, which sends each statement to the
 * request's D1 session, is src/db/routing.ts; the writes run on it without Drizzle (src/db/writes.ts).
 */
import { drizzle } from "drizzle-orm/d1";
import type { Env } from "../config";
import { routedClient } from "./routing";
import * as schema from "./schema";

export { type D1Client, withD1Session } from "./session";

export type Database = ReturnType<typeof open>;
const open = (client: D1Database) => drizzle(client, { schema });

/**
 * One Drizzle instance per D1 binding for the life of the isolate: creating it walks the whole schema.
 * The binding is the key, so a test's or a counting wrapper's own binding gets its own instance.
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
