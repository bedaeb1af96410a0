/**
 * Set-up and tear-down: tools, the Worker bundle, the seeded database (cached, checkpointed), and the one
 * workerd (through Miniflare, direct sockets, no proxy) that serves the API, its counting twin and the
 * floor Workers. Everything started here is stopped by cleanup(), also on failure or Ctrl-C.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { BENCH, config, DATA, DB_ID, log, ROOT } from "./config";
import { FLOORS, type FloorDefinition, type FloorKey } from "./floors";
import { migrationStatements, type SeedResult, seed } from "./seed";

// ---- Processes ----------------------------------------------------------------------------------

export const children = new Set<ChildProcess>();
let mf: Miniflare | undefined;
/** The tail of workerd's output, printed when the run fails. */
export const runtimeOutput: string[] = [];

export function miniflare(): Miniflare {
  if (!mf) throw new Error("workerd is not running");
  return mf;
}

export async function cleanup(): Promise<void> {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  const running = mf;
  mf = undefined;
  if (running) await running.dispose().catch(() => {});
  // The working copy is hundreds of megabytes, in memory when on tmpfs; the seeded original stays cached.
  rmSync(config.work, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- Tools and versions -------------------------------------------------------------------------

/** A Debian tool the benchmark needs (wrk, sqlite3): installed with apt-get when missing. */
export function ensureTool(command: string, aptPackage = command): boolean {
  const present = () => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
  if (present()) return true;
  log(`${command} not found: installing it (apt-get install -y ${aptPackage})`);
  const install = () => spawnSync("apt-get", ["install", "-y", aptPackage], { stdio: "inherit" }).status === 0;
  if (install()) return present();
  spawnSync("apt-get", ["update"], { stdio: "inherit" });
  return install() && present();
}

export function wranglerToml(): {
  compatibilityDate: string;
  compatibilityFlags: string[];
  vars: Record<string, string>;
} {
  const text = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  if (!compatibilityDate) throw new Error("wrangler.toml has no compatibility_date");
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(text)?.[1] ?? "";
  const compatibilityFlags = [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  const vars: Record<string, string> = {};
  const section = /^\[vars\]\n([\s\S]*?)(?=^\[)/m.exec(text)?.[1] ?? "";
  for (const line of section.split("\n")) {
    const match = /^([A-Z0-9_]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(line.trim());
    if (match) vars[match[1]!] = match[2] ?? match[3] ?? "";
  }
  return { compatibilityDate, compatibilityFlags, vars };
}

export function miniflareVersion(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve("miniflare");
  return JSON.parse(readFileSync(path.join(main.slice(0, main.lastIndexOf("/dist/")), "package.json"), "utf8")).version;
}

export function workerdVersion(): string {
  const require = createRequire(createRequire(import.meta.url).resolve("miniflare"));
  const main = require.resolve("workerd");
  const dir = main.slice(0, main.lastIndexOf("/lib/"));
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).version;
  const binary = spawnSync(path.join(dir, "bin/workerd"), ["--version"], { encoding: "utf8" }).stdout.trim();
  return `${binary || "workerd"} (npm workerd ${pkg})`;
}

export function wranglerVersion(): string {
  const require = createRequire(import.meta.url);
  return JSON.parse(readFileSync(require.resolve("wrangler/package.json"), "utf8")).version;
}

// ---- The bundle ---------------------------------------------------------------------------------

/** Bundles the Worker as deployed (`wrangler deploy --dry-run`); answers the directory of index.mjs: the Worker's entry and its modules. */
export function build(): string {
  const outdir = path.join(DATA, "build");
  rmSync(outdir, { recursive: true, force: true });
  log("Bundling the Worker (wrangler deploy --dry-run)…");
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  // The counting instance runs the bundle behind bench/capture.js, which records the SQL it executes; the
  // notification phase behind bench/notification-count.js, which counts its consumer's and mailboxes'.
  copyFileSync(path.join(BENCH, "capture.js"), path.join(outdir, "capture.js"));
  copyFileSync(path.join(BENCH, "notification-count.js"), path.join(outdir, "notification-count.js"));
  return outdir;
}

/** The second shard's database (SHARD_1), migrated empty in each run's working copy. */
const SHARD_1_ID = `${DB_ID}-shard-1`;

// ---- The seeded database ------------------------------------------------------------------------

function migrationFiles(): string[] {
  const dir = path.join(ROOT, "migrations");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => path.join(dir, f));
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

function bytes(list: string[]): number {
  return list.reduce((sum, file) => sum + statSync(file).size, 0);
}

export interface CheckpointResult {
  /** Bytes of the whole seeded directory and of its write-ahead logs, before and after. */
  totalBefore: number;
  totalAfter: number;
  walBefore: number;
  walAfter: number;
  note: string;
}

/**
 * Folds the write-ahead logs into the databases (`PRAGMA wal_checkpoint(TRUNCATE)` with the sqlite3
 * command-line shell; D1 refuses PRAGMAs through the binding, and workerd is killed, not closed, so it
 * never checkpoints on its own). Without this the cached seed carried a WAL of about 217 MB that every
 * run copied and that SQLite replayed on first open.
 */
export function checkpoint(dir: string): CheckpointResult {
  const all = files(dir);
  const wal = (list: string[]) => bytes(list.filter((f) => f.endsWith("-wal")));
  const result: CheckpointResult = {
    totalBefore: bytes(all),
    totalAfter: 0,
    walBefore: wal(all),
    walAfter: 0,
    note: "",
  };
  if (!ensureTool("sqlite3")) {
    result.note = "sqlite3 not available: cached with its write-ahead logs";
  } else {
    for (const db of all.filter((f) => f.endsWith(".sqlite"))) {
      const run = spawnSync("sqlite3", [db, "PRAGMA wal_checkpoint(TRUNCATE);"], { encoding: "utf8" });
      if (run.status !== 0) result.note += `${path.basename(db)}: ${run.stderr.trim()}; `;
    }
  }
  const after = files(dir);
  result.totalAfter = bytes(after);
  result.walAfter = wal(after);
  return result;
}

export interface SeedMeta extends SeedResult {
  hash: string;
  seededAt: string;
  seconds: number;
  checkpoint?: CheckpointResult;
}

/** The seeded database, from the cache when the migrations and the seed script are unchanged. */
export async function ensureSeed(compatibilityDate: string): Promise<{ dir: string; meta: SeedMeta }> {
  const hash = createHash("sha256");
  for (const file of [...migrationFiles(), path.join(BENCH, "seed.ts")]) hash.update(readFileSync(file));
  hash.update(miniflareVersion());
  const key = hash.digest("hex").slice(0, 16);
  const dir = path.join(DATA, `seed-${key}`);
  if (existsSync(path.join(dir, "meta.json"))) {
    const meta = JSON.parse(readFileSync(path.join(dir, "meta.json"), "utf8")) as SeedMeta;
    // A cache written before the checkpoint existed: fold its logs in now, once.
    if (bytes(files(dir).filter((f) => f.endsWith("-wal"))) > 0) {
      meta.checkpoint = checkpoint(path.join(dir, "d1"));
      writeFileSync(path.join(dir, "meta.json"), JSON.stringify(meta, null, 2));
    }
    log(`Seeded database: cached (${path.relative(ROOT, dir)})`);
    return { dir, meta };
  }
  for (const old of readdirSync(DATA).filter((f) => f.startsWith("seed-"))) {
    rmSync(path.join(DATA, old), { recursive: true, force: true });
  }
  const tmp = `${dir}.tmp`;
  mkdirSync(tmp, { recursive: true });
  log("Seeding the database (cached afterwards)…");
  const started = Date.now();
  mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 204 }); } };",
    compatibilityDate,
    d1Databases: { DB: DB_ID },
    d1Persist: path.join(tmp, "d1"),
  });
  const db = await mf.getD1Database("DB");
  for (const file of migrationFiles()) {
    for (const statement of migrationStatements(readFileSync(file, "utf8"))) await db.prepare(statement).run();
  }
  const result = await seed(db, log);
  await cleanup();
  const meta: SeedMeta = {
    ...result,
    hash: key,
    seededAt: new Date().toISOString(),
    seconds: (Date.now() - started) / 1000,
    checkpoint: checkpoint(path.join(tmp, "d1")),
  };
  writeFileSync(path.join(tmp, "meta.json"), JSON.stringify(meta, null, 2));
  renameSync(tmp, dir);
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  log(
    `Seeded ${JSON.stringify(meta.rows)} in ${meta.seconds.toFixed(1)} s; checkpointed: ${mb(meta.checkpoint!.totalBefore)} → ${mb(meta.checkpoint!.totalAfter)} (WAL ${mb(meta.checkpoint!.walBefore)} → ${mb(meta.checkpoint!.walAfter)})`,
  );
  return { dir, meta };
}

// ---- The runtime --------------------------------------------------------------------------------

export type Base = "api" | "count" | FloorKey;
export type Urls = Record<Base, string>;

export async function start(
  buildDir: string,
  compatibilityDate: string,
  compatibilityFlags: string[],
  vars: Record<string, string>,
): Promise<{ urls: Urls; mf: Miniflare }> {
  const socket = [{ host: "127.0.0.1", port: 0 }];
  const bindings = (count: boolean) => ({
    ...vars,
    REQUIRE_HTTPS: "false",
    RATE_LIMIT_REQUESTS: "100000000",
    // The login throttle counts every attempt in flight (exactly, before the password check): 64
    // concurrent logins of one user would be 59 × 429 by design. The bench measures what a login costs,
    // its throttle's object calls included, not the throttle's refusals.
    LOGIN_MAX_FAILURES: "100000000",
    LOGIN_MAX_FAILURES_PER_ADDRESS: "100000000",
    COUNT_BINDINGS: count ? "true" : "false",
    // The seed's year of finished applications stays live whatever the cron runs (the sweep's, the
    // payouts'): only those the archived-get scenario picks are archived (bench/scenarios.ts).
    ARCHIVE_AFTER_DAYS: "36500",
  });
  // Two shards bound, as deployed (wrangler.toml): DB, the directory and shard 0, holds the seeded partners;
  // SHARD_1 has the schema and no partner, so every request goes through the shards' routing to shard 0,
  // the most loaded of the two.
  const common = {
    modules: true,
    compatibilityDate,
    compatibilityFlags,
    d1Databases: { DB: DB_ID, SHARD_1: SHARD_1_ID },
  };
  // The Worker's buckets (the documents' files, the archive), shared by the API and its counting twin.
  const buckets = { r2Buckets: { DOCUMENTS: "financing-documents", ARCHIVE: "financing-archive" } };
  // The API's own rate-limit objects, for the floors that make the one object call every request makes.
  const apiObjects = { RATE_LIMITER: { className: "RateLimiter", scriptName: "api", useSQLite: true } };
  // The queue has a producer only: no consumer would deliver notifications to shops during the runs.
  const queue = { NOTIFICATIONS: { queueName: "financing-notifications" } };
  mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    ...(config.profile ? { inspectorPort: config.inspectorPort } : {}),
    d1Persist: path.join(config.work, "d1"),
    durableObjectsPersist: path.join(config.work, "do"),
    r2Persist: path.join(config.work, "r2"),
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      // Request logs are written (the runtime does that work) but not printed; the tail is kept for errors.
      for (const stream of [stdout, stderr]) {
        stream.on("data", (chunk: Buffer) => {
          const text = chunk.toString();
          runtimeOutput.push(text);
          if (runtimeOutput.length > 40) runtimeOutput.shift();
          // Everything but the one-line request logs goes to bench/.data/runtime.log for diagnosis.
          const unusual = text.split("\n").filter((l) => l.trim() && !l.startsWith('{"level":"info"'));
          if (unusual.length) appendFileSync(path.join(DATA, "runtime.log"), `${unusual.join("\n")}\n`);
        });
      }
    },
    workers: [
      {
        ...common,
        name: "api",
        scriptPath: path.join(buildDir, "index.mjs"),
        bindings: bindings(false),
        ...buckets,
        durableObjects: { RATE_LIMITER: { className: "RateLimiter", useSQLite: true } },
        queueProducers: queue,
        unsafeDirectSockets: socket,
      },
      {
        ...common,
        name: "api-count",
        // The same bundle behind bench/capture.js, with COUNT_BINDINGS on: the cost samples.
        scriptPath: path.join(buildDir, "capture.js"),
        // Miniflare takes .js files for CommonJS unless told otherwise (capture.js is an ES module), and
        // a rule given replaces its default for the Worker's .mjs modules.
        modulesRules: [{ type: "ESModule" as const, include: ["**/*.js", "**/*.mjs"] }],
        bindings: bindings(true),
        ...buckets,
        // The same objects as `api`: sessions written at login there are found here.
        durableObjects: apiObjects,
        queueProducers: queue,
        unsafeDirectSockets: socket,
      },
      ...Object.entries(FLOORS).map(([key, floor]: [string, FloorDefinition]) => ({
        ...common,
        name: `floor-${key}`,
        scriptPath: path.join(BENCH, "floors", floor.file),
        ...(floor.objectCall ? { durableObjects: apiObjects } : {}),
        ...(floor.queue ? { queueProducers: queue } : {}),
        unsafeDirectSockets: socket,
      })),
    ],
  });
  await mf.ready;
  const running = mf;
  const shard = await running.getD1Database("SHARD_1", "api");
  for (const file of migrationFiles()) {
    for (const statement of migrationStatements(readFileSync(file, "utf8"))) await shard.prepare(statement).run();
  }
  const url = async (name: string) => (await running.unsafeGetDirectURL(name)).toString().replace(/\/$/, "");
  const urls = { api: await url("api"), count: await url("api-count") } as Urls;
  for (const key of Object.keys(FLOORS) as FloorKey[]) urls[key] = await url(`floor-${key}`);
  return { urls, mf: running };
}
