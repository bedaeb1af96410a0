/**
 * `npm run bench`: throughput and latency of the API on workerd, next to the floors of the same runtime.
 *
 * 1. Bundles the Worker (`wrangler deploy --dry-run`), seeds a local D1 (cached under bench/.data/,
 *    keyed by the migrations and bench/seed.ts) and copies it to a scratch working database.
 * 2. Starts one Miniflare (one workerd) with six workers, each on its own direct socket (no proxy):
 *    `api` (the bundle, COUNT_BINDINGS off), `api-count` (the same bundle with COUNT_BINDINGS on,
 *    sharing `api`'s Durable Object namespace, for the cost samples), and four floors (bench/floors):
 *    a constant answer, one D1 read by primary key, one D1 insert, and one call to the API's own
 *    rate-limit object followed by the D1 read (what any authenticated read costs at least). All share
 *    one D1 database, kept on tmpfs (/dev/shm) where there is one: see WORK below.
 * 3. Logs in once per partner, samples each scenario's D1 and Durable Object calls on `api-count`,
 *    then drives every scenario with wrk (bench/load.lua) for a fixed time at fixed concurrency.
 * 4. Prints the table and writes bench/results.md.
 *
 * Knobs: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (64), BENCH_THREADS (wrk threads, 2),
 * BENCH_WARMUP (s, 2), BENCH_QUICK=1 (3 s runs, 1 s warm-up), BENCH_ONLY (regex on scenario names),
 * BENCH_OUT (where to write the report; quick or partial runs default to bench/.data/results.partial.md),
 * BENCH_WORK (directory of the working databases), BENCH_PROFILE=1 (a CPU profile of the `api` isolate
 * per API scenario, written to bench/.data/profile-*.{cpuprofile,txt}; see bench/profile.ts).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { applicationRequest } from "../test/support/application-request";
import { startProfile } from "./profile";
import { migrationStatements, PARTNERS, type SeedResult, seed } from "./seed";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const BENCH = path.join(ROOT, "bench");
const DATA = path.join(BENCH, ".data");
const DB_ID = "bench-financing";

const env = process.env;
/**
 * The working databases (D1 and the Durable Objects' SQLite files) live on tmpfs when the machine has
 * one. On the shared virtual disk every durable write waits for an fsync whose latency comes and goes
 * with the neighbours; on tmpfs the runs measure the runtime's CPU, the same for floors and the API.
 */
const WORK = env.BENCH_WORK ?? (existsSync("/dev/shm") ? "/dev/shm/financing-bench" : path.join(DATA, "work"));
const PROFILE = env.BENCH_PROFILE === "1";
const INSPECTOR_PORT = 9231;
const QUICK = env.BENCH_QUICK === "1";
const DURATION = Number(env.BENCH_DURATION ?? (QUICK ? 3 : 10));
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 64);
const THREADS = Number(env.BENCH_THREADS ?? 2);
const WARMUP = Number(env.BENCH_WARMUP ?? (QUICK ? 1 : 2));
const SAMPLES = 3;
const ONLY = env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : undefined;
const FULL = !QUICK && !ONLY;
const OUT = env.BENCH_OUT ?? (FULL ? path.join(BENCH, "results.md") : path.join(DATA, "results.partial.md"));

const log = (message: string) => console.log(message);

// ---- Processes: everything started here is stopped here, also on failure or Ctrl-C ------------

const children = new Set<ChildProcess>();
let mf: Miniflare | undefined;
const runtimeOutput: string[] = [];

async function cleanup(): Promise<void> {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  const running = mf;
  mf = undefined;
  if (running) await running.dispose().catch(() => {});
  // The working copy is hundreds of megabytes, in memory when on tmpfs; the seeded original stays cached.
  rmSync(WORK, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void cleanup().finally(() => process.exit(130));
  });
}

// ---- CPU accounting (/proc): is workerd starved, and is anything else using the machine? ----------

interface CpuSnapshot {
  busy: number;
  total: number;
  workerd: number;
  own: number;
}

function procStat(pid: string): { ppid: number; comm: string; jiffies: number; children: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const comm = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    // After "pid (comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17), numbered from 1.
    return {
      ppid: Number(fields[1]),
      comm,
      jiffies: Number(fields[11]) + Number(fields[12]),
      children: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined;
  }
}

/** Busy jiffies of the machine, of our workerd, and of this process tree (wrk included once reaped). */
function cpuSnapshot(): CpuSnapshot {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  const busy = total - cpu[3]! - cpu[4]!;
  const stats = new Map<number, NonNullable<ReturnType<typeof procStat>>>();
  for (const pid of readdirSync("/proc").filter((f) => /^\d+$/.test(f))) {
    const stat = procStat(pid);
    if (stat) stats.set(Number(pid), stat);
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!mine.has(pid) && mine.has(stat.ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  let workerd = 0;
  let own = 0;
  for (const pid of mine) {
    const stat = stats.get(pid);
    if (!stat) continue;
    own += stat.jiffies + (pid === process.pid ? stat.children : 0);
    if (stat.comm === "workerd") workerd += stat.jiffies;
  }
  return { busy, total, workerd, own };
}

const CORES = os.cpus().length;

/** Cores used between two snapshots: by our workerd, and by everything outside this benchmark. */
function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): { workerd: number; others: number } {
  const total = Math.max(1, b.total - a.total);
  return {
    workerd: ((b.workerd - a.workerd) / total) * CORES,
    others: Math.max(0, ((b.busy - a.busy - (b.own - a.own)) / total) * CORES),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until workerd has finished the previous scenario's backlog (requests wrk left in flight). */
async function drain(): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const a = cpuSnapshot();
    await sleep(250);
    if (cpuBetween(a, cpuSnapshot()).workerd < 0.05) return;
  }
  log("  warning: workerd still busy after 30 s");
}

/** Before starting: wait (BENCH_IDLE_WAIT seconds at most) for other work on the machine to calm down. */
async function waitForQuietMachine(): Promise<number> {
  const limit = Number(env.BENCH_IDLE_WAIT ?? 120);
  const started = Date.now();
  let polls = 0;
  for (;;) {
    const a = cpuSnapshot();
    await sleep(2000);
    const { others } = cpuBetween(a, cpuSnapshot());
    if (others < 0.25 || Date.now() - started > limit * 1000) {
      if (others >= 0.25) log(`  warning: other processes use ${others.toFixed(2)} cores; results will be noisy`);
      return others;
    }
    if (++polls % 10 === 1) {
      log(
        `  other processes use ${others.toFixed(2)} of ${CORES} cores; waiting (at most BENCH_IDLE_WAIT=${limit} s)…`,
      );
    }
  }
}

// ---- Set-up -----------------------------------------------------------------------------------

function ensureWrk(): void {
  if (spawnSync("sh", ["-c", "command -v wrk"]).status === 0) return;
  log("wrk not found: installing it (apt-get install -y wrk)");
  const install = () => spawnSync("apt-get", ["install", "-y", "wrk"], { stdio: "inherit" }).status === 0;
  if (install()) return;
  spawnSync("apt-get", ["update"], { stdio: "inherit" });
  if (!install()) throw new Error("could not install wrk; install it (apt-get install wrk) and rerun");
}

function wranglerToml(): { compatibilityDate: string; vars: Record<string, string> } {
  const text = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(text)?.[1];
  if (!compatibilityDate) throw new Error("wrangler.toml has no compatibility_date");
  const vars: Record<string, string> = {};
  const section = /^\[vars\]\n([\s\S]*?)(?=^\[)/m.exec(text)?.[1] ?? "";
  for (const line of section.split("\n")) {
    const match = /^([A-Z0-9_]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(line.trim());
    if (match) vars[match[1]!] = match[2] ?? match[3] ?? "";
  }
  return { compatibilityDate, vars };
}

function build(): string {
  const outdir = path.join(DATA, "build");
  rmSync(outdir, { recursive: true, force: true });
  log("Bundling the Worker (wrangler deploy --dry-run)…");
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/wrangler"), ["deploy", "--dry-run", "--outdir", outdir], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${result.stdout}\n${result.stderr}`);
  return path.join(outdir, "index.js");
}

function migrationFiles(): string[] {
  const dir = path.join(ROOT, "migrations");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((f) => path.join(dir, f));
}

function miniflareVersion(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve("miniflare");
  return JSON.parse(readFileSync(path.join(main.slice(0, main.lastIndexOf("/dist/")), "package.json"), "utf8")).version;
}

function workerdVersion(): string {
  const require = createRequire(createRequire(import.meta.url).resolve("miniflare"));
  const main = require.resolve("workerd");
  const dir = main.slice(0, main.lastIndexOf("/lib/"));
  const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")).version;
  const binary = spawnSync(path.join(dir, "bin/workerd"), ["--version"], { encoding: "utf8" }).stdout.trim();
  return `${binary || "workerd"} (npm workerd ${pkg})`;
}

interface SeedMeta extends SeedResult {
  hash: string;
  seededAt: string;
  seconds: number;
}

/** The seeded database, from the cache when the migrations and the seed script are unchanged. */
async function ensureSeed(compatibilityDate: string): Promise<{ dir: string; meta: SeedMeta }> {
  const hash = createHash("sha256");
  for (const file of [...migrationFiles(), path.join(BENCH, "seed.ts")]) hash.update(readFileSync(file));
  hash.update(miniflareVersion());
  const key = hash.digest("hex").slice(0, 16);
  const dir = path.join(DATA, `seed-${key}`);
  if (existsSync(path.join(dir, "meta.json"))) {
    log(`Seeded database: cached (${path.relative(ROOT, dir)})`);
    return { dir, meta: JSON.parse(readFileSync(path.join(dir, "meta.json"), "utf8")) };
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
  };
  writeFileSync(path.join(tmp, "meta.json"), JSON.stringify(meta, null, 2));
  renameSync(tmp, dir);
  log(`Seeded ${JSON.stringify(meta.rows)} in ${meta.seconds.toFixed(1)} s`);
  return { dir, meta };
}

// ---- The runtime ------------------------------------------------------------------------------

interface Urls {
  api: string;
  count: string;
  constant: string;
  read: string;
  insert: string;
  readObject: string;
}

async function start(bundle: string, compatibilityDate: string, vars: Record<string, string>): Promise<Urls> {
  const socket = [{ host: "127.0.0.1", port: 0 }];
  const bindings = (count: boolean) => ({
    ...vars,
    REQUIRE_HTTPS: "false",
    RATE_LIMIT_REQUESTS: "100000000",
    COUNT_BINDINGS: count ? "true" : "false",
  });
  const common = { modules: true, compatibilityDate, d1Databases: { DB: DB_ID } };
  // The queue has a producer only: no consumer would deliver notifications to shops during the runs.
  const queue = { NOTIFICATIONS: { queueName: "financing-notifications" } };
  mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    ...(PROFILE ? { inspectorPort: INSPECTOR_PORT } : {}),
    d1Persist: path.join(WORK, "d1"),
    durableObjectsPersist: path.join(WORK, "do"),
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
        scriptPath: bundle,
        bindings: bindings(false),
        durableObjects: { RATE_LIMITER: { className: "RateLimiter", useSQLite: true } },
        queueProducers: queue,
        unsafeDirectSockets: socket,
      },
      {
        ...common,
        name: "api-count",
        scriptPath: bundle,
        bindings: bindings(true),
        // The same objects as `api`: sessions written at login there are found here.
        durableObjects: { RATE_LIMITER: { className: "RateLimiter", scriptName: "api", useSQLite: true } },
        queueProducers: queue,
        unsafeDirectSockets: socket,
      },
      ...(["constant", "read", "insert"] as const).map((floor) => ({
        ...common,
        name: `floor-${floor}`,
        scriptPath: path.join(BENCH, "floors", `${floor}.js`),
        unsafeDirectSockets: socket,
      })),
      {
        ...common,
        name: "floor-read-object",
        scriptPath: path.join(BENCH, "floors", "read-object.js"),
        durableObjects: { RATE_LIMITER: { className: "RateLimiter", scriptName: "api", useSQLite: true } },
        unsafeDirectSockets: socket,
      },
    ],
  });
  await mf.ready;
  const url = async (name: string) => (await mf!.unsafeGetDirectURL(name)).toString().replace(/\/$/, "");
  return {
    api: await url("api"),
    count: await url("api-count"),
    constant: await url("floor-constant"),
    read: await url("floor-read"),
    insert: await url("floor-insert"),
    readObject: await url("floor-read-object"),
  };
}

// ---- Scenarios --------------------------------------------------------------------------------

type Floor = "constant" | "read" | "insert" | "readObject";

interface Scenario {
  name: string;
  base: keyof Urls;
  method: string;
  paths: string[];
  /** Paths for the cost samples when the load paths must stay untouched (send, refund). */
  samplePaths?: string[];
  token?: string;
  body?: string;
  /** Each wrk thread takes its own slice of the paths: no path is requested twice. */
  slice?: boolean;
  floor?: Floor;
  /** What the ratio is taken against. */
  against?: Floor;
}

interface Result {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  socketErrors: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  notes: string;
  /** Cores used during the run by our workerd and by processes outside the benchmark. */
  cpuWorkerd: number;
  cpuOthers: number;
}

interface Cost {
  statuses: number[];
  roundTrips: number[];
  statements: number[];
  objectCalls: number[];
}

const FILTER_READY = "filter=state%7Ceq%7CREADY";

/** The create body: every field of the spec, the same request the tests send. */
function applicationBody(orderNumber: string): string {
  return JSON.stringify(applicationRequest({ orderNumber }));
}

async function login(base: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${base}/authentication/v1/partner`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { accessToken?: string };
  if (res.status !== 200 || !body.accessToken)
    throw new Error(`login ${username}: ${res.status} ${JSON.stringify(body)}`);
  return body.accessToken;
}

async function scenarios(meta: SeedMeta, urls: Urls): Promise<Scenario[]> {
  const db = await mf!.getD1Database("DB");
  await db.prepare("DROP TABLE IF EXISTS bench_scratch").run();
  await db
    .prepare(
      "CREATE TABLE bench_scratch (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created_at INTEGER NOT NULL)",
    )
    .run();
  const partner = (username: string) => meta.partners.find((p) => p.username === username)!;
  const partnerId = async (username: string) =>
    (await db.prepare("SELECT id FROM partners WHERE username = ?").bind(username).first<{ id: string }>())!.id;
  const ids = async (query: string, ...bind: unknown[]) =>
    (
      await db
        .prepare(query)
        .bind(...bind)
        .all<{ id: string }>()
    ).results.map((r) => r.id);

  const large = await partnerId(PARTNERS.large);
  const getIds = await ids("SELECT id FROM applications WHERE partner_id = ? ORDER BY random() LIMIT 20000", large);
  const ready = await ids(
    "SELECT id FROM applications WHERE partner_id = ? AND state = 'READY' AND state_reason = 'READY_TO_SHIP' ORDER BY random()",
    large,
  );
  const sendIds = ready.filter((_, i) => i % 2 === 0);
  const refundIds = ready.filter((_, i) => i % 2 === 1);

  const tokens: Record<string, string> = {};
  for (const username of [PARTNERS.small, PARTNERS.large, PARTNERS.writer]) {
    tokens[username] = await login(urls.api, username, partner(username).password);
  }

  const list = "/financing/v1/applications";
  const listScenarios: Scenario[] = [];
  for (const [size, username] of [
    ["1k", PARTNERS.small],
    ["100k", PARTNERS.large],
  ] as const) {
    const pid = await partnerId(username);
    const count = partner(username).applications;
    const readyCount = (await db
      .prepare("SELECT COUNT(*) AS n FROM applications WHERE partner_id = ? AND state = 'READY'")
      .bind(pid)
      .first<{ n: number }>())!.n;
    // Cursors 21 items before the end, so the deep page is a full page of 20 like the first one.
    const cursor = async (where: string, order: string, total: number) =>
      (await db
        .prepare(`SELECT id FROM applications WHERE partner_id = ? ${where} ORDER BY ${order} LIMIT 1 OFFSET ?`)
        .bind(pid, total - 21)
        .first<{ id: string }>())!.id;
    const plain = await cursor("", "id", count);
    const sorted = await cursor("", "total_amount DESC, id DESC", count);
    const filtered = await cursor("AND state = 'READY'", "id", readyCount);
    const variants: [string, string][] = [
      [`list first ${size}`, list],
      [`list first sorted ${size}`, `${list}?sort=-totalPrice`],
      [`list first filtered ${size}`, `${list}?${FILTER_READY}`],
      [`list deep ${size}`, `${list}?after=${plain}`],
      [`list deep sorted ${size}`, `${list}?sort=-totalPrice&after=${sorted}`],
      [`list deep filtered ${size}`, `${list}?${FILTER_READY}&after=${filtered}`],
    ];
    for (const [name, p] of variants) {
      listScenarios.push({ name, base: "api", method: "GET", paths: [p], token: tokens[username]!, against: "read" });
    }
  }
  // The list pairs side by side: 1k, then 100k.
  listScenarios.sort((a, b) => a.name.replace(/ \d+k$/, "").localeCompare(b.name.replace(/ \d+k$/, "")));

  const small = partner(PARTNERS.small);
  return [
    { name: "floor: constant", base: "constant", method: "GET", paths: ["/"], floor: "constant" },
    {
      name: "floor: D1 read by id",
      base: "read",
      method: "GET",
      paths: getIds.map((id) => `/${id}`),
      floor: "read",
    },
    { name: "floor: D1 insert", base: "insert", method: "POST", paths: ["/bench"], floor: "insert" },
    {
      name: "floor: DO call + D1 read",
      base: "readObject",
      method: "GET",
      paths: getIds.map((id) => `/${id}`),
      floor: "readObject",
    },
    {
      name: "create application",
      base: "api",
      method: "POST",
      paths: ["/financing/v1/applications"],
      body: applicationBody("BENCH-{{ORDER}}"),
      token: tokens[PARTNERS.writer]!,
      against: "insert",
    },
    {
      name: "get application (100k)",
      base: "api",
      method: "GET",
      paths: getIds.map((id) => `/financing/v1/applications/${id}`),
      token: tokens[PARTNERS.large]!,
      against: "read",
    },
    ...listScenarios,
    {
      name: "send order (100k)",
      base: "api",
      method: "PUT",
      paths: sendIds.slice(SAMPLES).map((id) => `/financing/v1/applications/${id}/order/send`),
      samplePaths: sendIds.slice(0, SAMPLES).map((id) => `/financing/v1/applications/${id}/order/send`),
      body: "{}",
      token: tokens[PARTNERS.large]!,
      slice: true,
      against: "insert",
    },
    {
      name: "refund 1 (100k)",
      base: "api",
      method: "POST",
      paths: refundIds.slice(SAMPLES).map((id) => `/financing/v1/applications/${id}/refunds`),
      samplePaths: refundIds.slice(0, SAMPLES).map((id) => `/financing/v1/applications/${id}/refunds`),
      body: JSON.stringify({ totalPrice: { amount: 1, currency: "CZK" } }),
      token: tokens[PARTNERS.large]!,
      slice: true,
      against: "insert",
    },
    // Last: PBKDF2 keeps the CPU busy long after wrk stops (drain() waits for it anyway).
    {
      name: "login",
      base: "api",
      method: "POST",
      paths: ["/authentication/v1/partner"],
      body: JSON.stringify({ username: small.username, password: small.password }),
      against: "constant",
    },
  ];
}

/** A few requests to the counting worker: what one request of the scenario costs in bindings. */
async function sampleCost(scenario: Scenario, urls: Urls): Promise<Cost> {
  const cost: Cost = { statuses: [], roundTrips: [], statements: [], objectCalls: [] };
  const paths = scenario.samplePaths ?? scenario.paths;
  for (let i = 0; i < SAMPLES; i++) {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (scenario.token) headers.Authorization = `Bearer ${scenario.token}`;
    if (scenario.body) headers["Content-Type"] = "application/json";
    const res = await fetch(`${urls.count}${paths[i % paths.length]}`, {
      method: scenario.method,
      headers,
      ...(scenario.body ? { body: scenario.body.replace("{{ORDER}}", `sample-${Date.now()}-${i}`) } : {}),
    });
    await res.arrayBuffer();
    cost.statuses.push(res.status);
    cost.roundTrips.push(Number(res.headers.get("X-Count-D1-Round-Trips")));
    cost.statements.push(Number(res.headers.get("X-Count-D1-Statements")));
    cost.objectCalls.push(Number(res.headers.get("X-Count-DO-Calls")));
  }
  return cost;
}

let fileCounter = 0;

async function wrk(scenario: Scenario, urls: Urls, seconds: number, runId: string): Promise<Result> {
  const dir = path.join(WORK, "wrk");
  mkdirSync(dir, { recursive: true });
  const n = ++fileCounter;
  const pathsFile = path.join(dir, `paths-${n}.txt`);
  writeFileSync(pathsFile, `${scenario.paths.join("\n")}\n`);
  let bodyFile = "";
  if (scenario.body) {
    bodyFile = path.join(dir, `body-${n}.json`);
    writeFileSync(bodyFile, scenario.body);
  }
  const args = [
    "-t",
    String(THREADS),
    "-c",
    String(CONNECTIONS),
    "-d",
    `${seconds}s`,
    "--timeout",
    "30s",
    "-s",
    path.join(BENCH, "load.lua"),
    urls[scenario.base],
  ];
  const child = spawn("wrk", args, {
    env: {
      ...env,
      BENCH_METHOD: scenario.method,
      BENCH_PATHS: pathsFile,
      BENCH_SLICE: scenario.slice ? "1" : "0",
      BENCH_BODY: bodyFile,
      BENCH_TOKEN: scenario.token ?? "",
      BENCH_THREADS: String(THREADS),
      BENCH_RUN: runId,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const before = cpuSnapshot();
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  children.delete(child);
  const cpu = cpuBetween(before, cpuSnapshot());
  const line = stdout.split("\n").find((l) => l.startsWith("BENCHJSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}) for ${scenario.name}:\n${stdout}\n${stderr}`);
  return { ...JSON.parse(line.slice("BENCHJSON ".length)), cpuWorkerd: cpu.workerd, cpuOthers: cpu.others } as Result;
}

// ---- Report -----------------------------------------------------------------------------------

const FLOOR_LABEL: Record<Floor, string> = {
  constant: "constant",
  read: "D1 read",
  insert: "D1 insert",
  readObject: "DO call + D1 read",
};
const FLOOR_COST: Record<Floor, string> = {
  constant: "0 / 0 · 0",
  read: "1 / 1 · 0",
  insert: "1 / 1 · 0",
  readObject: "1 / 1 · 1",
};

function range(values: number[]): string {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
}

function machine(): string[] {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  const memKb = Number(/^MemTotal:\s*(\d+)/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0);
  const nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  const wrkVersion = spawnSync("wrk", ["-v"], { encoding: "utf8" }).stdout.split("\n")[0]?.trim() ?? "wrk";
  return [
    `- Machine: ${nproc} cores (nproc), ${model}, ${(memKb / 1024 / 1024).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; ${workerdVersion()}; miniflare ${miniflareVersion()}; ${wrkVersion}`,
  ];
}

function report(
  all: Scenario[],
  results: Map<string, Result>,
  costs: Map<string, Cost>,
  meta: SeedMeta,
  started: Date,
  quiet: number,
): string {
  const floorRps = (floor: Floor) => all.find((s) => s.floor === floor && results.has(s.name));
  const rpsOf = (name: string) => results.get(name)?.rps;
  const floorOf = (floor: Floor) => {
    const scenario = floorRps(floor);
    return scenario ? rpsOf(scenario.name) : undefined;
  };
  const rows: string[] = [
    "| Scenario | Requests/s | p50 ms | p99 ms | Errors | Ratio to floor | D1 round trips / statements · DO calls per request | CPU cores: workerd / others |",
    "|---|---:|---:|---:|---:|---|---|---|",
  ];
  let errors = 0;
  for (const scenario of all) {
    const r = results.get(scenario.name);
    if (!r) continue;
    const failed = r.non2xx + r.socketErrors;
    const kinds = (["connect", "read", "write", "timeout"] as const).filter((k) => r[k] > 0).map((k) => `${k} ${r[k]}`);
    const errorText = `${failed}${r.non2xx && kinds.length ? ` (non-2xx ${r.non2xx})` : ""}${kinds.length ? ` (${kinds.join(", ")})` : ""}`;
    errors += scenario.floor ? 0 : failed;
    const floor = scenario.against ? floorOf(scenario.against) : undefined;
    const ratio =
      scenario.against && floor
        ? `${(r.rps / floor).toFixed(r.rps / floor < 0.1 ? 4 : 2)} × ${FLOOR_LABEL[scenario.against]}`
        : "";
    const cost = costs.get(scenario.name);
    const costText = cost
      ? `${range(cost.roundTrips)} / ${range(cost.statements)} · ${range(cost.objectCalls)}${
          cost.statuses.every((s) => s >= 200 && s < 300) ? "" : ` (sample statuses ${cost.statuses.join(",")})`
        }`
      : scenario.floor
        ? FLOOR_COST[scenario.floor]
        : "";
    rows.push(
      `| ${scenario.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${errorText} | ${ratio} | ${costText} | ${r.cpuWorkerd.toFixed(2)} / ${r.cpuOthers.toFixed(2)} |`,
    );
  }

  const targets: string[] = ["| Target | Measured | Verdict |", "|---|---|---|"];
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const pair = (name: string, floor: Floor, min: number, label: string) => {
    const rps = rpsOf(name);
    const f = floorOf(floor);
    if (rps === undefined || f === undefined) return;
    const ratio = rps / f;
    targets.push(
      `| ${label} ≥ ${min} × ${FLOOR_LABEL[floor]} floor | ${ratio.toFixed(2)} × (${rps.toFixed(0)} vs ${f.toFixed(0)} req/s) | ${verdict(ratio >= min)} |`,
    );
  };
  pair("get application (100k)", "read", 0.7, "get");
  const get = rpsOf("get application (100k)");
  const readObject = floorOf("readObject");
  if (get !== undefined && readObject !== undefined) {
    targets.push(
      `| (for reference) get against the DO call + D1 read floor, the least any authenticated read costs | ${(get / readObject).toFixed(2)} × (${get.toFixed(0)} vs ${readObject.toFixed(0)} req/s); that floor itself is ${floorOf("read") ? (readObject / floorOf("read")!).toFixed(2) : "?"} × the D1 read floor | |`,
    );
  }
  pair("create application", "insert", 0.5, "create");
  for (const page of [
    "list first",
    "list first sorted",
    "list first filtered",
    "list deep",
    "list deep sorted",
    "list deep filtered",
  ]) {
    const small = results.get(`${page} 1k`);
    const large = results.get(`${page} 100k`);
    if (!small || !large) continue;
    const slowdown = small.rps / large.rps;
    targets.push(
      `| ${page}: 100k rows within 1.5 × 1k rows | ${slowdown.toFixed(2)} × (${large.rps.toFixed(0)} vs ${small.rps.toFixed(0)} req/s; p50 ${large.p50.toFixed(1)} vs ${small.p50.toFixed(1)} ms) | ${verdict(slowdown <= 1.5)} |`,
    );
  }
  // Every authenticated scenario (all but login) on the counting instance: one object call per request.
  // Which D1 statements a request makes is asserted statement by statement in test/rate-limit/cost.test.ts.
  const authenticated = all.filter((s) => s.token && costs.has(s.name));
  if (authenticated.length > 0) {
    const calls = authenticated.flatMap((s) => costs.get(s.name)!.objectCalls);
    const trips = authenticated.flatMap((s) => costs.get(s.name)!.roundTrips);
    targets.push(
      `| every authenticated request: one DO call | ${range(calls)} per request in ${authenticated.length} scenarios (D1 round trips ${range(trips)}: the handler's own) | ${verdict(calls.every((n) => n === 1))} |`,
    );
  }
  const measuredApi = all.filter((s) => !s.floor && results.has(s.name)).length;
  targets.push(
    `| zero errors at 64 connections | ${errors} errors in ${measuredApi} API scenarios at ${CONNECTIONS} connections | ${
      CONNECTIONS === 64 ? verdict(errors === 0) : "n/a (not run at 64)"
    } |`,
  );

  const notes = [...results.entries()].filter(([, r]) => r.notes).map(([name, r]) => `- ${name}: ${r.notes.trim()}`);

  return [
    "# Benchmark results",
    "",
    `Produced by \`npm run bench\` on ${started.toISOString().slice(0, 16).replace("T", " ")} UTC${FULL ? "" : " (partial or quick run)"}.`,
    "",
    ...machine(),
    `- Databases: ${WORK.startsWith("/dev/shm") ? "on tmpfs (/dev/shm), so that the virtual disk's fsync latency does not decide the runs" : WORK}`,
    `- Load: wrk, ${THREADS} threads, ${CONNECTIONS} connections, ${DURATION} s per scenario after ${WARMUP} s warm-up (none for send and refund), on the same machine as workerd`,
    `- Other processes (outside the benchmark) used ${quiet.toFixed(2)} of ${CORES} cores just before the start; the last column shows, per run, the cores used by the benchmark's workerd and by everything else`,
    `- Data: ${meta.rows.applications} applications, ${meta.rows.orderLines} order lines, ${meta.rows.events} events over ${meta.partners.length} partners (1,000 for "1k", 100,000 for "100k")`,
    "",
    "Ratio to floor: requests per second of the scenario ÷ those of the floor worker named, on the same workerd and database. Floors: a constant answer; one `SELECT * FROM applications WHERE id = ?`; one `INSERT` into a scratch table; one call to the API's rate-limit Durable Object (`RateLimiter.hit`) followed by that read. get and list are taken against the read floor, create, send and refund against the insert floor, login against the constant floor (it is PBKDF2-bound on purpose). Costs were sampled on a second instance of the API Worker with `COUNT_BINDINGS=true`.",
    "",
    ...rows,
    "",
    "## Targets",
    "",
    ...targets,
    "",
    ...(notes.length ? ["## Failed responses (first body per status)", "", ...notes, ""] : []),
  ].join("\n");
}

// ---- Main -------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = new Date();
  mkdirSync(DATA, { recursive: true });
  ensureWrk();
  const { compatibilityDate, vars } = wranglerToml();
  const bundle = build();
  const { dir, meta } = await ensureSeed(compatibilityDate);

  rmSync(WORK, { recursive: true, force: true });
  rmSync(path.join(DATA, "runtime.log"), { force: true });
  mkdirSync(WORK, { recursive: true });
  cpSync(path.join(dir, "d1"), path.join(WORK, "d1"), { recursive: true });

  log("Starting workerd (Miniflare, direct sockets)…");
  log("Checking that the machine is quiet…");
  const quiet = await waitForQuietMachine();
  const urls = await start(bundle, compatibilityDate, { ...vars, AUTH_PEPPER: meta.pepper });
  const all = await scenarios(meta, urls);
  const selected = all.filter((s) => s.floor || !ONLY || ONLY.test(s.name));

  log("Sampling D1 and Durable Object calls per request (COUNT_BINDINGS=true)…");
  const costs = new Map<string, Cost>();
  for (const scenario of selected) {
    if (!scenario.floor) costs.set(scenario.name, await sampleCost(scenario, urls));
  }

  log(`Load: ${THREADS} wrk threads, ${CONNECTIONS} connections, ${DURATION} s per scenario\n`);
  const results = new Map<string, Result>();
  const runId = Date.now().toString(36);
  for (const scenario of selected) {
    await drain();
    if (!scenario.slice && WARMUP > 0) {
      await wrk(scenario, urls, WARMUP, `${runId}w`);
      await drain();
    }
    const stop =
      PROFILE && scenario.base === "api"
        ? await startProfile(INSPECTOR_PORT, "api", path.join(DATA, `profile-${scenario.name.replace(/\W+/g, "-")}`))
        : undefined;
    const result = await wrk(scenario, urls, DURATION, runId);
    await stop?.();
    results.set(scenario.name, result);
    if (scenario.slice && result.requests > scenario.paths.length) {
      log(
        `  warning: ${scenario.name} made ${result.requests} requests over ${scenario.paths.length} ids (ids reused)`,
      );
    }
    log(
      `  ${scenario.name.padEnd(28)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(1).padStart(7)} ms  p99 ${result.p99
        .toFixed(1)
        .padStart(
          7,
        )} ms  errors ${result.non2xx}+${result.socketErrors} (c${result.connect} r${result.read} w${result.write} t${result.timeout})  cpu workerd ${result.cpuWorkerd.toFixed(2)} others ${result.cpuOthers.toFixed(2)}`,
    );
  }

  const text = report(selected, results, costs, meta, started, quiet);
  writeFileSync(OUT, `${text}\n`);
  log(`\n${text}\nWritten to ${path.relative(ROOT, OUT)}`);
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    if (runtimeOutput.length) console.error(`\nLast runtime output:\n${runtimeOutput.join("")}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
