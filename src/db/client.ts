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
import { shardBinding } from "./shards";

export { type D1Client, withD1Session } from "./session";

export type Database = ReturnType<typeof open>;
const open = (client: D1Database) => drizzle(client, { schema });

/**
 * One Drizzle instance per D1 binding for the life of the isolate: creating it walks the whole schema.
 * The binding is the key, so a test's or a counting wrapper's own binding gets its own instance.
 */
const instances = new WeakMap<D1Database, Database>();

/** Drizzle over a binding's routed client (the request's handle asks: src/db/handle.ts). */
export function drizzleOver(binding: D1Database, client: D1Database = routedClient(binding)): Database {
  let db = instances.get(binding);
  if (!db) {
    db = open(client);
    instances.set(binding, db);
  }
  return db;
}

/** Drizzle over the directory's database (`DB`, also shard 0), for work outside a request. */
export const database = (env: Pick<Env, "DB">): Database => drizzleOver(env.DB);

/** Drizzle over one shard's database (src/db/shards.ts), for work outside a request (the cron, the queue). */
export const shardDatabase = (env: Parameters<typeof shardBinding>[0], shard: number): Database =>
  drizzleOver(shardBinding(env, shard));
