/**
 * `npm start`: the local API in one command. Applies migrations to the embedded D1, ensures the demo
 * partner, prints its credentials and serves on http://127.0.0.1:8787. Arguments after `--` go to
 * `wrangler dev` (for example `npm start -- --port 9000 --var RATE_LIMIT_REQUESTS:50`).
 */
import { spawn } from "node:child_process";
import { DEMO, ensureDevVars, LOCAL_DEV_VARS, partnerSql, wrangler } from "./lib";

const vars = ensureDevVars();
wrangler(["d1", "migrations", "apply", "DB", "--local"]);
wrangler(["d1", "execute", "DB", "--local", "--command", await partnerSql(DEMO, vars.AUTH_PEPPER!, true)], {
  quiet: true,
});

const args = process.argv.slice(2);
const has = (flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const devArgs = [
  "dev",
  ...(has("--ip") ? [] : ["--ip", "127.0.0.1"]),
  ...(has("--port") ? [] : ["--port", "8787"]),
  ...LOCAL_DEV_VARS,
];

console.log(`\nDemo partner (local only): ${JSON.stringify(DEMO)}`);
console.log(`Serving on http://127.0.0.1:${portOf(args)}  (docs: /docs, OpenAPI: /openapi.json)\n`);

const child = spawn("npm", ["exec", "--", "wrangler", ...devArgs, ...args], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));

/** The port wrangler dev will listen on: `--port 9000`, `--port=9000`, or 8787. */
function portOf(argv: string[]): string {
  for (const [i, arg] of argv.entries()) {
    if (arg === "--port" && argv[i + 1]) return argv[i + 1]!;
    if (arg.startsWith("--port=")) return arg.slice("--port=".length);
  }
  return "8787";
}
