/**
 * The request's database, as one handle built once per request (src/app.ts sets `c.var.db`): the D1
 * binding it runs on, and two ways to reach it:
 * - `client`, the D1 client of the statements built ahead of time and of the writes (src/db/routing.ts:
 *   each statement goes to the request's D1 session); the cold paths use nothing else;
 * - `orm()`, Drizzle on the same client, for the queries made per request (a list's filters, the sweep's
 *   due applications), loaded with its first use so that a request without one never loads Drizzle.
 * Work outside a request (the cron, the queue consumer) takes a handle of the binding it works on.
 */
import type { Database } from "./client";
import { routedClient } from "./routing";
import { type Bindings, shardBinding } from "./shards";

export interface DatabaseHandle {
  readonly binding: D1Database;
  /** Which shard the binding is (src/db/shards.ts): what the request's queue messages and links name. */
  readonly shard: number;
  readonly client: D1Database;
  orm(): Promise<Database>;
}

const handles = new WeakMap<D1Database, DatabaseHandle>();

/** The handle of a D1 binding, one per binding for the life of the isolate (a test's own binding gets its own). */
export function databaseHandle(binding: D1Database, shard = 0): DatabaseHandle {
  let handle = handles.get(binding);
  if (!handle) {
    const client = routedClient(binding);
    handle = {
      binding,
      shard,
      client,
      orm: async () => (await import("./client")).drizzleOver(binding, client),
    };
    handles.set(binding, handle);
  }
  return handle;
}

/** The handle of the partner's shard (src/db/shards.ts). */
export const shardHandle = (env: Bindings, shard: number) => databaseHandle(shardBinding(env, shard), shard);

/** The handle of the directory (src/db/shards.ts): partners' identities and the access tokens. */
export const directoryHandle = (env: Bindings) => databaseHandle(env.DB);
