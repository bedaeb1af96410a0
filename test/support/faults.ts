/**
 * Platform faults, injected: a D1 binding (and its sessions) whose next executions fail with a given
 * error, and a Durable Object namespace whose stubs fail one method. The app gets them through `vars`;
 * everything else is the real local runtime.
 */
import { env } from "cloudflare:workers";
import { everyShard } from "../../src/db/shards";

const REAL = Symbol("real statement");

/**
 * Every shard's D1 (with its sessions; src/db/shards.ts) failing the next `failures` executions, of any
 * of them, with `error()`; counts executions. `vars` is what a request overrides to meet them.
 */
export function faultyD1(failures: number, error: () => Error) {
  const state = { left: failures, executions: 0 };
  const fail = () => {
    state.executions++;
    if (state.left > 0) {
      state.left--;
      throw error();
    }
  };
  const statement = (s: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(s, {
      get(target, prop) {
        if (prop === REAL) return target;
        const value = Reflect.get(target, prop, target);
        if (prop === "bind") return (...args: unknown[]) => statement(value.apply(target, args));
        if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
          return async (...args: unknown[]) => {
            fail();
            return value.apply(target, args);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  const real = (s: D1PreparedStatement) => (s as unknown as { [REAL]?: D1PreparedStatement })[REAL] ?? s;
  const client = (db: D1Database | D1DatabaseSession) => ({
    prepare: (query: string) => statement(db.prepare(query)),
    batch: async (statements: D1PreparedStatement[]) => {
      fail();
      return db.batch(statements.map(real));
    },
    withSession: (constraint?: string) => client((db as D1Database).withSession(constraint)),
    getBookmark: () => ("getBookmark" in db ? db.getBookmark() : null),
    exec: (query: string) => (db as D1Database).exec(query),
  });
  const vars = Object.fromEntries(
    everyShard(env).map(({ shard, binding }) => [shard === 0 ? "DB" : `SHARD_${shard}`, client(binding)]),
  ) as unknown as Record<"DB" | `SHARD_${number}`, D1Database>;
  return { vars, state };
}

/** The Durable Object namespace, with `method` of every stub failing with `error()`. */
export function faultyObjects(method: string, error: () => Error): typeof env.RATE_LIMITER {
  const namespace = env.RATE_LIMITER;
  return new Proxy(namespace, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (id: DurableObjectId) => {
        const stub = target.get(id);
        return new Proxy(stub, {
          get(s, name) {
            if (name === method) return async () => Promise.reject(error());
            const call = Reflect.get(s, name);
            return typeof call === "function" ? (...args: unknown[]) => Reflect.apply(call, s, args) : call;
          },
        });
      };
    },
  });
}

/** Errors as the platform raises them (Cloudflare's lists; Durable Object errors carry their flags). */
export const PLATFORM_ERRORS = {
  connectionLost: () => new Error("D1_ERROR: Network connection lost."),
  databaseReset: () => new Error("D1_ERROR: D1 DB reset because its code was updated."),
  objectOverloaded: () =>
    Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), { overloaded: true }),
  notTransient: () => new Error("D1_ERROR: no such table: applications_v2: SQLITE_ERROR"),
  /** A database whose lock another connection holds, with SQLite's code (as `wrangler d1 execute` reports it). */
  databaseBusy: () =>
    new Error("D1_ERROR: database is locked: SQLITE_BUSY", { cause: new Error("database is locked: SQLITE_BUSY") }),
  /**
   * The same, as the local runtime hands it to the Worker (reproduced with `npm start` and
   * `npm run partner:create` beside it): workerd keeps SQLITE_BUSY to its own log.
   */
  databaseBusyLocally: () => {
    const message =
      "Failed to parse body as JSON, got: Error: internal error; reference = 6mr3evk959at34eif6nri747\n" +
      "    at D1DatabaseObject.queryExecute (file:///node_modules/miniflare/dist/src/workers/d1/database.worker.js:191:73)";
    return new Error(`D1_ERROR: ${message}`, { cause: new Error(message) });
  },
  constraint: () => new Error("D1_ERROR: UNIQUE constraint failed: partners.username: SQLITE_CONSTRAINT"),
};
