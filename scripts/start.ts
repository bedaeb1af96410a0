/**
 * `npm start`: the local API in one command. Applies migrations to the embedded D1, ensures the demo
 * partner and serves on http://127.0.0.1:8787; when it really answers (its /v1/health), it prints one
 * banner: the address, the demo partner's credentials, the reference and the console. What wrangler
 * prints while it starts (the migrations, the build, its tables) goes to a log file of its own, named in
 * the banner; `--verbose` shows it as it comes. Once ready, the server's own lines (each request's log)
 * are shown. Arguments after `--` go to `wrangler dev` (for example `npm start -- --port 9000 --var
 * RATE_LIMIT_REQUESTS:50`).
 *
 * Each server builds into a folder of its own, dist/dev-<port> (build/worker.ts reads WORKER_BUILD_DIR;
 * wrangler dev is given its entry there), so that a second `npm start` in the same checkout, a test run
 * or a deploy never rewrites the modules a running server loads.
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdirSync } from "node:fs";
import { newId } from "../src/ids";
import {
  applyLocalMigrations,
  DEMO,
  d1Rows,
  ensureDevVars,
  LOCAL_DEV_VARS,
  partnerStatements,
  shardBindings,
} from "./lib";

const verbose = process.argv.includes("--verbose");
const args = process.argv.slice(2).filter((a) => a !== "--verbose");
const has = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const port = option("--port") ?? "8787";
// `--persist-to DIR` (wrangler dev's) keeps the local database there: the migrations and the demo partner go there too.
const persistTo = option("--persist-to");
const address = `http://127.0.0.1:${port}`;
/** How long the server may take to answer before the start is given up. */
const READY_WITHIN_MS = 180_000;

const outdir = `dist/dev-${port}`;
const logFile = `dist/dev-${port}.log`;
mkdirSync("dist", { recursive: true });
const log = createWriteStream(logFile);
let ready = false;
/** What the start printed, to the log; on screen too once ready (or always, with --verbose). */
const show = (chunk: Buffer | string) => {
  log.write(chunk);
  if (ready || verbose) process.stdout.write(chunk);
};

const vars = ensureDevVars();
applyLocalMigrations({ persistTo, quiet: !verbose });
// The demo partner is of the newest shard (src/db/shards.ts), so that the README's flow goes through the
// routing; where an earlier start put it, it stays (its id and shard are the directory's).
const database = { persistTo };
const [known] = d1Rows<{ id: string; shard: number }>(
  `SELECT id, shard FROM partners WHERE username = '${DEMO.username}';`,
  database,
)[0]!;
const demoShard = known?.shard ?? shardBindings().length - 1;
const demoId = known?.id ?? newId();
for (const { binding, sql } of await partnerStatements(DEMO, vars.AUTH_PEPPER!, true, demoId, demoShard)) {
  d1Rows(sql, database, binding);
}

const devArgs = [
  "dev",
  `${outdir}/index.mjs`,
  ...(has("--ip") ? [] : ["--ip", "127.0.0.1"]),
  ...(has("--port") ? [] : ["--port", port]),
  ...LOCAL_DEV_VARS,
];
const child = spawn("npm", ["exec", "--", "wrangler", ...devArgs, ...args], {
  stdio: ["inherit", "pipe", "pipe"],
  env: { ...process.env, WORKER_BUILD_DIR: outdir },
});
child.stdout.on("data", show);
child.stderr.on("data", show);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => {
  if (!ready) console.error(`\nThe server stopped before it was ready: what it printed is in ${logFile}.`);
  process.exit(code ?? 0);
});

for (const deadline = Date.now() + READY_WITHIN_MS; !ready && Date.now() < deadline; ) {
  const health = await fetch(`${address}/v1/health`).catch(() => undefined);
  if (health?.status === 200) ready = true;
  else await new Promise((resolve) => setTimeout(resolve, 250));
}
if (!ready) {
  console.error(`The server did not answer within ${READY_WITHIN_MS / 1000} s: what it printed is in ${logFile}.`);
  child.kill("SIGTERM");
} else {
  console.log(
    [
      "",
      `Ready on ${address}`,
      `  demo partner (local only): user ${DEMO.username}, password ${DEMO.password}, API key ${DEMO.apiKey}`,
      `  reference: ${address}/docs (OpenAPI: ${address}/openapi.json)`,
      `  console:   ${address}/console (sign in as the demo partner)`,
      `  start log: ${logFile} (npm start -- --verbose shows it); requests are logged below`,
      "",
    ].join("\n"),
  );
}

/** The value of a wrangler dev option among the arguments: `--port 9000` or `--port=9000`. */
function option(flag: string): string | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg === flag && args[i + 1]) return args[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}
