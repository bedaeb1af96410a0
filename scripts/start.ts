/**
 * `npm start`: the local API in one command. Applies migrations to the embedded D1, ensures the demo
 * partner, prints its credentials and serves on http://127.0.0.1:8787. Arguments after `--` go to
 * `wrangler dev` (for example `npm start -- --port 9000 --var RATE_LIMIT_REQUESTS:50`).
 *
 * Each server builds into a folder of its own, dist/dev-<port> (build/worker.ts reads
 * WORKER_BUILD_DIR; wrangler dev is given its entry there), so that a second `npm start` in the same
 * checkout, a test run or a deploy never rewrites the modules a running server loads.
 */
import { spawn } from "node:child_process";
import { applyLocalMigrations, DEMO, ensureDevVars, LOCAL_DEV_VARS, partnerSql, wrangler } from "./lib";

const args = process.argv.slice(2);
const has = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const port = option("--port") ?? "8787";
// `--persist-to DIR` (wrangler dev's) keeps the local database there: the migrations and the demo partner go there too.
const persistTo = option("--persist-to");

const vars = ensureDevVars();
applyLocalMigrations({ persistTo });
const where = persistTo ? ["--persist-to", persistTo] : [];
wrangler(["d1", "execute", "DB", "--local", ...where, "--command", await partnerSql(DEMO, vars.AUTH_PEPPER!, true)], {
  quiet: true,
});

const outdir = `dist/dev-${port}`;
const devArgs = [
  "dev",
  `${outdir}/index.mjs`,
  ...(has("--ip") ? [] : ["--ip", "127.0.0.1"]),
  ...(has("--port") ? [] : ["--port", port]),
  ...LOCAL_DEV_VARS,
];

console.log(`\nDemo partner (local only): ${JSON.stringify(DEMO)}`);
console.log(`Serving on http://127.0.0.1:${port}  (docs: /docs, OpenAPI: /openapi.json)\n`);

const child = spawn("npm", ["exec", "--", "wrangler", ...devArgs, ...args], {
  stdio: "inherit",
  env: { ...process.env, WORKER_BUILD_DIR: outdir },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));

/** The value of a wrangler dev option among the arguments: `--port 9000` or `--port=9000`. */
function option(flag: string): string | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg === flag && args[i + 1]) return args[i + 1];
    if (arg.startsWith(`${flag}=`)) return arg.slice(flag.length + 1);
  }
  return undefined;
}
