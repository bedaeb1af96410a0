/**
 * The D1 binding of `npm run cron`'s runtime (scripts/cron.ts), as a Miniflare wrapped binding: the
 * local database, whose statements are run again when they found it busy. Beside it a running
 * `npm start` holds the same SQLite file, and workerd's SQLite answers SQLITE_BUSY at once rather than
 * wait for the lock (it reaches the Worker as D1's "internal error; reference = …"), so the cron's
 * queries and its consumer's would fail where the deployed database would have waited. A statement
 * that failed so took no effect (a batch is one transaction), so it is run again as it was, briefly;
 * after that the error stands. Only this local runtime has it: the Worker's code is unchanged.
 */
const BUSY = /SQLITE_BUSY|internal error; reference = /;
/** Pauses before each new attempt (milliseconds): about 6 s in all. */
const DELAYS_MS = [25, 50, 100, 200, 400, 800, 1600, 3200];
const INNER = Symbol("statement");

function busy(error) {
  for (let e = error, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (BUSY.test(String(e.message ?? e))) return true;
  }
  return false;
}

async function again(run) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const delay = DELAYS_MS[attempt];
      if (delay === undefined || !busy(error)) throw error;
      console.warn("cron: the local database was busy (a running server's lock); again");
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

function statement(inner) {
  return {
    [INNER]: inner,
    bind: (...values) => statement(inner.bind(...values)),
    first: (...args) => again(() => inner.first(...args)),
    all: () => again(() => inner.all()),
    run: () => again(() => inner.run()),
    raw: (...args) => again(() => inner.raw(...args)),
  };
}

/** The binding of one shard: `env[env.shard]` (`DB`, `SHARD_1`, …) is its local database itself. */
export default function (env) {
  const database = env[env.shard];
  return {
    prepare: (query) => statement(database.prepare(query)),
    batch: (statements) => again(() => database.batch(statements.map((s) => s[INNER] ?? s))),
    exec: (query) => again(() => database.exec(query)),
  };
}
