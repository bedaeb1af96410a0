/**
 * Which D1 session the queries of a request go to, kept apart from Drizzle (src/db/client.ts): the
 * middleware that opens the session (src/rate-limit/read-your-writes.ts) loads this module on the first
 * partner request, and only this module: Drizzle and the schema come with the request's route module.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** What the queries of one request run on: the D1 binding itself, or a session of it (read replicas). */
export type D1Client = D1Database | D1DatabaseSession;

/**
 * The D1 session of the request being served (see `withD1Session`). Drizzle and its prepared queries
 * are built once per isolate, over a client that sends each statement to the session of the request
 * that runs it, or to the binding itself outside a session (the queue consumer, the sweep, the gateway).
 * Passing a session down explicitly would mean one Drizzle instance per request: building one walks
 * the whole schema, and prepared queries would be prepared again on every request.
 */
export const requestSession = new AsyncLocalStorage<{ binding: D1Database; client: D1Client; reads: boolean }>();

/**
 * Runs `work` with every query it makes on `binding` going to `session` (a session is of one database:
 * a query of another, the directory's say, goes to that database itself). With `reads` (an idempotent
 * request: GET), a statement or batch that fails transiently is sent again, a bounded number of times
 * (`retryingRead`).
 */
export function withD1Session<T>(
  binding: D1Database,
  session: D1Client,
  work: () => Promise<T>,
  options = { reads: false },
): Promise<T> {
  return requestSession.run({ binding, client: session, reads: options.reads }, work);
}
