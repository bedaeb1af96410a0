/**
 * The Worker in a local runtime of its own (Miniflare, which wrangler dev runs too), for the commands that
 * run its code on the local state beside (or instead of) `npm start`: `npm run cron` runs its scheduled
 * handler, `npm run partner:move` its move of a partner. This checkout's build (into `outdir`), the
 * bindings and variables of wrangler.toml and .dev.vars as wrangler dev reads them (wrangler's
 * unstable_getMiniflareWorkerOptions), no assets router in front, and the D1 databases and R2 buckets of
 * `.wrangler/state`, or of `--persist-to DIR`: those of the server beside it. Every D1 binding is behind
 * scripts/cron-database.mjs, which runs a statement again when it found the database locked by the server.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { shardBindings } from "./lib";

const root = path.join(import.meta.dirname, "..");
const DATABASE = "cron-database";

export interface LocalRuntimeOptions {
  /** Where the build goes (a folder of its own per command). */
  outdir: string;
  /** The local state: `.wrangler/state`, or the `--persist-to` the server was started with. */
  persistTo: string;
  vars?: Record<string, string>;
  /**
   * The Durable Objects' storage too (the rate limiter's sessions): those of the server's state, as it
   * last wrote them. Without it the runtime's objects are its own and end with it.
   */
  persistObjects?: boolean;
  /** Each structured log line of the Worker. */
  onLog?: (line: string, level: string) => void;
}

export function startLocalRuntime(options: LocalRuntimeOptions) {
  if (spawnSync("npm", ["run", "--silent", "build", "--", "--outdir", options.outdir], { stdio: "inherit" }).status) {
    throw new Error("npm run build failed");
  }
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, "wrangler.toml"));
  // No assets router in front (none of these commands needs assets), and the databases behind the retrying binding.
  const { assets: _assets, modulesRules: _rules, d1Databases, ...worker } = workerOptions;
  const modules = [
    "index.mjs",
    ...readdirSync(path.join(options.outdir, "worker-modules"))
      .filter((file) => file.endsWith(".mjs"))
      .map((file) => `worker-modules/${file}`),
  ].map((file) => ({ type: "ESModule" as const, path: path.join(options.outdir, file) }));
  const state = path.resolve(root, options.persistTo);
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    d1Persist: path.join(state, "v3/d1"),
    r2Persist: path.join(state, "v3/r2"),
    ...(options.persistObjects ? { durableObjectsPersist: path.join(state, "v3/do") } : {}),
    structuredWorkerdLogs: true,
    handleStructuredLogs: ({ message, level }: { message: string; level: string }) => {
      const line = message.trimEnd();
      if (options.onLog) options.onLog(line, level);
      else (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
    },
    workers: [
      {
        ...worker,
        name: "financing-partner-api",
        modules,
        modulesRoot: options.outdir,
        bindings: { ...worker.bindings, ...options.vars },
        // Every shard (src/db/shards.ts) behind the retrying wrapper.
        wrappedBindings: Object.fromEntries(
          shardBindings().map((shard) => [shard, { scriptName: DATABASE, bindings: { shard } }]),
        ),
      },
      {
        name: DATABASE,
        modules: [{ type: "ESModule", path: path.join(import.meta.dirname, "cron-database.mjs") }],
        d1Databases,
      },
    ],
  });
  return {
    mf,
    /** The local database of a shard's binding (`DB`, `SHARD_1`, …), behind the retrying wrapper. */
    database: (binding: string) => mf.getD1Database(binding, DATABASE),
  };
}
