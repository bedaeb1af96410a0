/**
 * `npm run partner:move -- --username NAME --to N [--remote | --persist-to DIR] [--grace-seconds S]`:
 * moves a partner to shard N (src/db/partner-move.ts: copy, freeze, copy the rows that changed meanwhile,
 * switch, forward, move the sessions, delete) and prints what it did as one JSON line: the rows copied,
 * those copied while frozen (`deltaRows`), those deleted from the old shard, and how long the partner's
 * writes were answered 503 (`frozenMs`). The end of the first copy, long for a large partner, is told on
 * stderr as it comes.
 *
 * Locally it runs the Worker's own code in a local runtime (scripts/local-runtime.ts) on the local state,
 * `.wrangler/state` or the `--persist-to DIR` of the server: the D1 databases of every shard and the rate
 * limiter's objects, whose sessions of the partner's tokens and people it moves to the new shard. A server
 * running beside it keeps the objects it has loaded as they were: a client of the partner whose session it
 * still holds gets its next write answered 503, the session follows the move then (src/app.ts), and the
 * retry goes to the new shard; its reads until then see the partner as it was at the switch for the
 * grace (default 2 s), then nothing. So move a partner while its server is stopped, or expect that.
 *
 * With `--remote`, the deployed objects are within the Worker's reach alone: it writes the request into
 * the directory (`partner_move_requests`), the Worker's next cron run (every 5 minutes) moves the partner
 * (src/scheduled.ts), and this waits for the report, at most WAIT_MS.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { applyLocalMigrations, checkUsername, d1Rows, ensureDevVars, shardBindings } from "./lib";
import { startLocalRuntime } from "./local-runtime";

const { values } = parseArgs({
  options: {
    username: { type: "string" },
    to: { type: "string" },
    remote: { type: "boolean", default: false },
    "persist-to": { type: "string" },
    "grace-seconds": { type: "string", default: "2" },
  },
});

/**
 * The Worker's modules this runs, imported untyped: they are typed in the Worker's world (tsconfig.json,
 * with D1's and the objects' types), this script in Node's, where those types are not. Their signatures,
 * as used here; the bindings are Miniflare's proxies of the runtime's own.
 */
type Bindings = Record<string, unknown>;
interface Modules {
  movePartner(
    shards: { directory: unknown; from: { shard: number; binding: unknown }; to: { shard: number; binding: unknown } },
    partnerId: string,
    options: {
      copied: (rows: number) => void;
      switched: (partnerId: string, shard: number) => Promise<void>;
      graceMs: number;
    },
  ): Promise<Record<string, unknown>>;
  moveSessions(env: Bindings, partnerId: string, shard: number, at: number): Promise<void>;
}
const MODULES = ["../src/db/partner-move.ts", "../src/rate-limit/partner-moved.ts"];
const modules = async () => Object.assign({}, ...(await Promise.all(MODULES.map((m) => import(m))))) as Modules;

const USAGE = "usage: npm run partner:move -- --username NAME --to N [--remote | --persist-to DIR] [--grace-seconds S]";

/** How long `--remote` waits for the cron to run the move: two runs, and a move of a large partner. */
const WAIT_MS = 20 * 60 * 1000;

/** `--remote`: the request for the deployed Worker's cron, then its report once it ran. */
async function requestMove(username: string, to: number): Promise<unknown> {
  const database = { remote: true, persistTo: undefined };
  const asked = Date.now();
  // A request asked again starts over (a failed one, or one for another shard).
  d1Rows(
    `INSERT INTO partner_move_requests (partner_id, to_shard, requested_at)
     SELECT id, ${to}, ${asked} FROM partners WHERE username = '${username}'
     ON CONFLICT (partner_id) DO UPDATE SET to_shard = excluded.to_shard, requested_at = excluded.requested_at,
       started_at = NULL, finished_at = NULL, report = NULL;`,
    database,
  );
  const state = `SELECT r.report FROM partner_move_requests r JOIN partners p ON p.id = r.partner_id
    WHERE p.username = '${username}' AND r.requested_at = ${asked};`;
  for (const until = Date.now() + WAIT_MS; Date.now() < until; ) {
    const [row] = d1Rows<{ report: string | null }>(state, database)[0] ?? [];
    if (!row) throw new Error(`no partner "${username}"`);
    if (row.report !== null) return JSON.parse(row.report);
    console.error("partner:move: waiting for the Worker's next cron run (every 5 minutes)");
    await new Promise((resolve) => setTimeout(resolve, 30_000));
  }
  throw new Error("no report yet: the request stays; read it in partner_move_requests (docs/operations.md)");
}

try {
  if (!values.username || values.to === undefined) throw new Error(USAGE);
  if (values.remote && values["persist-to"]) throw new Error("--persist-to names a local database: not with --remote");
  checkUsername(values.username);
  const bindings = shardBindings();
  const to = Number(values.to);
  if (!Number.isSafeInteger(to) || to < 0 || to >= bindings.length) {
    throw new Error(`--to: a shard of 0 to ${bindings.length - 1} (wrangler.toml binds ${bindings.join(", ")})`);
  }
  const graceMs = Number(values["grace-seconds"]) * 1000;
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new Error("--grace-seconds: a number of seconds");
  if (values.remote) {
    const report = (await requestMove(values.username, to)) as { error?: string };
    if (report.error) throw new Error(`the move did not run: ${report.error}`);
    console.log(JSON.stringify({ username: values.username, ...report }));
    process.exit(0);
  }
  const persistTo = values["persist-to"];
  ensureDevVars();
  applyLocalMigrations({ quiet: true, persistTo });

  const { mf, database } = startLocalRuntime({
    outdir: path.join(import.meta.dirname, "../dist/partner-move"),
    persistTo: persistTo ?? ".wrangler/state",
    persistObjects: true,
  });
  try {
    const { movePartner, moveSessions } = await modules();
    const shards = await Promise.all(bindings.map(database));
    const env: Bindings = {
      ...Object.fromEntries(bindings.map((binding, n) => [binding, shards[n]])),
      RATE_LIMITER: await mf.getDurableObjectNamespace("RATE_LIMITER"),
    };
    const directory = shards[0]!;
    const partner = await directory
      .prepare("SELECT id, shard FROM partners WHERE username = ?")
      .bind(values.username)
      .first<{ id: string; shard: number }>();
    if (!partner) throw new Error(`no partner "${values.username}"`);
    const report = await movePartner(
      {
        directory,
        from: { shard: partner.shard, binding: shards[partner.shard]! },
        to: { shard: to, binding: shards[to]! },
      },
      partner.id,
      {
        copied: (rows) =>
          console.error(`partner:move: ${rows} rows copied; freezing the partner for what changed meanwhile`),
        switched: (id, shard) => moveSessions(env, id, shard, Date.now()),
        graceMs,
      },
    );
    console.log(JSON.stringify({ username: values.username, ...report }));
  } finally {
    await mf.dispose();
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
