/**
 * The D1 client the Worker's queries run on, without Drizzle: Drizzle's instance runs on it
 * (src/db/client.ts), and so do the statements built ahead of time (src/db/precompiled.ts), with which a
 * cold path that only reads (the gateway page) does without Drizzle.
 */
import { retryingRead } from "../transient";
import { requestSession } from "./session";

/**
 * A client for Drizzle that resolves the target per statement: `prepare` answers a statement that
 * picks the current session when it is bound (Drizzle binds every statement before it runs it, even
 * without parameters when it runs alone), and `batch` resolves the ones Drizzle passes unbound.
 */
function routingClient(binding: D1Database): D1Database {
  const session = () => {
    const store = requestSession.getStore();
    return store?.binding === binding ? store : undefined;
  };
  const target = () => session()?.client ?? binding;
  const reads = () => session()?.reads === true;
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

const clients = new WeakMap<D1Database, D1Database>();

/** The routing client of a D1 binding, one per binding (a test's or a counting wrapper's own binding gets its own). */
export function routedClient(binding: D1Database): D1Database {
  let client = clients.get(binding);
  if (!client) {
    client = routingClient(binding);
    clients.set(binding, client);
  }
  return client;
}
