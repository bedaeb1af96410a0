/**
 * bench/results.md: the machine, the scenarios' throughput, CPU per request and latency, their ratios to
 * the fair floors measured in the same rounds, the startup CPU, and the targets met or missed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BENCH, config, FULL, ROOT } from "./config";
import { CLK_TCK, CORES } from "./cpu";
import { type FirstRequestRow, firstRequestTable } from "./first-request";
import { FLOORS, type FloorKey, floorName } from "./floors";
import { type OpenLoopResult, type SaturationResult, serviceErrors } from "./load";
import type { NotificationResult } from "./notifications";
import type { PayoutsResult } from "./payouts";
import { miniflareVersion, type SeedMeta, workerdVersion, wranglerVersion } from "./runtime";
import type { Cost, Scenario } from "./scenarios";
import { COLD_REQUESTS, type StartupMeasure, type StartupResult } from "./startup";
import type { SweepResult } from "./sweep";

export interface RunData {
  started: Date;
  /** Cores other processes used just before the start. */
  quiet: number;
  meta: SeedMeta;
  selected: Scenario[];
  /** Saturation runs per scenario, index = round − 1. */
  rounds: Map<string, SaturationResult[]>;
  open: Map<string, OpenLoopResult>;
  costs: Map<string, Cost>;
  /** "" when the fair floor runs exactly the API's statements; undefined when not checked. */
  drift: { get?: string; create?: string };
  startup?: StartupResult | { error: string };
  /** Each cold request's first and second call from outside, on a fresh `npm start` (first-request.ts). */
  firstRequests?: FirstRequestRow[] | { error: string };
  sweep?: SweepResult;
  payouts?: PayoutsResult;
  notifications?: NotificationResult;
  warnings: string[];
}

export const median = (values: number[]): number => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const ms = (value: number) => (Number.isFinite(value) ? (value < 10 ? value.toFixed(2) : value.toFixed(1)) : "–");
const range = (values: number[]) => {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? String(lo) : `${lo}–${hi}`;
};

function machine(): string[] {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? "unknown";
  const memKb = Number(/^MemTotal:\s*(\d+)/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0);
  const nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  const wrk = spawnSync("wrk", ["-v"], { encoding: "utf8" }).stdout.split("\n")[0]?.trim() ?? "wrk";
  const git = (args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const commit = git(["rev-parse", "--short", "HEAD"]);
  const dirty = git(["status", "--porcelain", "--", "src", "migrations", "wrangler.toml", "package-lock.json"]);
  return [
    `- Code: ${commit ? `commit ${commit}` : "not a git checkout"}${dirty ? " with uncommitted changes in src, migrations or configuration" : ""}`,
    `- Machine: ${nproc} cores (nproc), ${model}, ${(memKb / 1024 / 1024).toFixed(1)} GiB memory, ${os.type()} ${os.release()}`,
    `- Node ${process.version}; ${workerdVersion()}; miniflare ${miniflareVersion()}; wrangler ${wranglerVersion()}; ${wrk}`,
  ];
}

/** Per-round values of one scenario (NaN where the round has no run). */
function perRound(data: RunData, name: string, pick: (r: SaturationResult) => number): number[] {
  return Array.from({ length: config.rounds }, (_, i) => {
    const r = data.rounds.get(name)?.[i];
    return r ? pick(r) : Number.NaN;
  });
}

/** The median over rounds of a per-round ratio, and the per-round values. */
function ratio(data: RunData, top: string, bottom: string, pick: (r: SaturationResult) => number) {
  const a = perRound(data, top, pick);
  const b = perRound(data, bottom, pick);
  const values = a.map((v, i) => v / b[i]!);
  return { median: median(values), values: values.filter((v) => Number.isFinite(v)) };
}

const cpu = (r: SaturationResult) => r.cpuMs;
const rps = (r: SaturationResult) => r.rps;

/** "met", or "missed" with the distance: how much CPU per request has to go to meet it. */
function verdictAtLeast(value: number, target: number): string {
  if (!Number.isFinite(value)) return "n/a (not measured)";
  if (value >= target) return "**met**";
  return `**missed** by ${fmt(target - value)} (${fmt(value)} vs ≥ ${target}: the scenario must shed ${fmt((1 - value / target) * 100, 0)} % of its CPU per request)`;
}

function verdictAtMost(value: number, target: number): string {
  if (!Number.isFinite(value)) return "n/a (not measured)";
  if (value <= target) return "**met**";
  return `**missed** by ${fmt(value - target)} (${fmt(value)} vs ≤ ${target}: ${fmt((1 - target / value) * 100, 0)} % of its CPU per request must go)`;
}

export function report(data: RunData): string {
  const { selected, costs, open } = data;
  const byName = new Map(selected.map((s) => [s.name, s]));
  const getName = "get application (100k)";
  const createName = "create application";

  // ---- The scenarios ----
  const rows = [
    "| Scenario | Fair floor | Requests/s (saturated) | CPU ms / request | Floor ÷ scenario, CPU | Scenario ÷ floor, req/s | Open loop: rate → p50 / p90 / p99 ms | CPU ms / request at that rate | Service errors | Connection closes | D1 round trips / statements · DO calls per request |",
    "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|",
  ];
  for (const s of selected) {
    const runs = (data.rounds.get(s.name) ?? []).filter(Boolean);
    if (runs.length === 0) continue;
    const o = open.get(s.name);
    const fair = s.fair ? floorName(s.fair) : undefined;
    const cpuRatio = fair ? ratio(data, fair, s.name, cpu).median : Number.NaN;
    const rpsRatio = fair ? ratio(data, s.name, fair, rps).median : Number.NaN;
    const errors = runs.reduce((sum, r) => sum + serviceErrors(r), 0) + (o ? serviceErrors(o) : 0);
    const closes = runs.reduce((sum, r) => sum + r.closes, 0) + (o ? o.closes : 0);
    const cost = costs.get(s.name);
    const costText = cost
      ? `${range(cost.roundTrips)} / ${range(cost.statements)} · ${range(cost.objectCalls)}${
          cost.statuses.every((st) => st >= 200 && st < 300) ? "" : ` (sample statuses ${cost.statuses.join(",")})`
        }`
      : s.floor
        ? FLOORS[s.floor].cost
        : "";
    const openText = o
      ? `${fmt(o.rate, 0)}/s → ${ms(o.p50)} / ${ms(o.p90)} / ${ms(o.p99)}${o.completed < o.scheduled ? ` (${o.scheduled - o.completed} unanswered)` : ""}`
      : "";
    rows.push(
      `| ${s.name} | ${fair ? FLOORS[s.fair!].label : ""} | ${fmt(median(runs.map(rps)), 0)} | ${ms(median(runs.map(cpu)))} | ${fmt(cpuRatio)} | ${fmt(rpsRatio)} | ${openText} | ${o ? ms(o.cpuMs) : ""} | ${errors} | ${closes} | ${costText} |`,
    );
  }

  // ---- Targets ----
  const targets = ["| Target | Measured (median over rounds; per round) | Verdict |", "|---|---|---|"];
  const stale = (drift: string | undefined) =>
    drift
      ? ` **The floor is stale**: ${drift.replace(/\|/g, "\\|")}. Update the floor file before trusting this row.`
      : "";
  const perRoundText = (values: number[]) => values.map((v) => fmt(v)).join(", ");
  const fairTarget = (name: string, floor: FloorKey, min: number, drift: string | undefined) => {
    if (!byName.has(name)) return;
    const reference = byName.get(name)!.reference;
    const r = ratio(data, floorName(floor), name, cpu);
    const floorCpu = median(perRound(data, floorName(floor), cpu));
    const ownCpu = median(perRound(data, name, cpu));
    // A reference floor is not the target's: it shows how much of the distance is a cost the fair floor leaves out.
    const against = reference && data.rounds.has(floorName(reference)) ? reference : undefined;
    const referenceText = against
      ? `; against the reference floor ${FLOORS[against].label} (${ms(median(perRound(data, floorName(against), cpu)))} ms): ${fmt(ratio(data, floorName(against), name, cpu).median)} ×`
      : "";
    targets.push(
      `| ${name.replace(/ \(100k\)| application/g, "")} ≥ ${min} × its fair floor (${FLOORS[floor].label}), CPU per request | ${fmt(r.median)} × (floor ${ms(floorCpu)} ms vs ${ms(ownCpu)} ms; rounds ${perRoundText(r.values)}${referenceText}) | ${verdictAtLeast(r.median, min)}${stale(drift)} |`,
    );
  };
  fairTarget(getName, "getFair", 0.85, data.drift.get);
  fairTarget(createName, "createFair", 0.7, data.drift.create);
  const notified = data.notifications;
  if (notified && notified.rounds.length > 0) {
    const statements = median(notified.rounds.map((r) => r.statementsPerDelivery));
    const perSecond = median(notified.rounds.map((r) => r.perSecond));
    targets.push(
      `| notifications to one healthy endpoint: delivered per second, and ≤ 2 D1 statements per delivered attempt (4 before the mailboxes) | ${fmt(perSecond, 0)}/s; ${fmt(statements)} statements (rounds ${notified.rounds.map((r) => `${fmt(r.perSecond, 0)}/s, ${fmt(r.statementsPerDelivery)}`).join("; ")}) | ${verdictAtMost(statements, 2)} |`,
    );
  }

  const lists = selected.filter((s) => s.kind === "list");
  if (lists.length > 0) {
    const trips = lists.map((s) => ({ s, trips: costs.get(s.name)?.roundTrips ?? [] }));
    const notOne = trips.filter((t) => !t.trips.every((n) => n === 1));
    targets.push(
      `| list first and deep pages in one D1 round trip | ${notOne.length === 0 ? `1 in all ${lists.length} list scenarios` : notOne.map((t) => `${t.s.name}: ${range(t.trips)}`).join("; ")} | ${
        notOne.length === 0 ? "**met**" : `**missed** in ${notOne.length} of ${lists.length} list scenarios`
      } |`,
    );
    if (byName.has(getName)) {
      for (const s of lists) {
        const r = ratio(data, s.name, getName, cpu);
        targets.push(
          `| ${s.name} ≤ 2 × get's CPU per request | ${fmt(r.median)} × (rounds ${perRoundText(r.values)}) | ${verdictAtMost(r.median, 2)} |`,
        );
      }
    }
  }
  for (const name of ["send order (100k)"]) {
    if (!byName.has(name) || !byName.has(createName)) continue;
    const r = ratio(data, name, createName, cpu);
    targets.push(
      `| send ≤ 1.5 × create's CPU per request | ${fmt(r.median)} × (rounds ${perRoundText(r.values)}) | ${verdictAtMost(r.median, 1.5)} |`,
    );
  }
  for (const s of lists.filter((l) => l.page!.size === "100k")) {
    const small = `list ${s.page!.variant} 1k`;
    if (!byName.has(small)) continue;
    const r = ratio(data, s.name, small, cpu);
    targets.push(
      `| ${s.name} ≤ 1.2 × ${small}, CPU per request | ${fmt(r.median)} × (rounds ${perRoundText(r.values)}) | ${verdictAtMost(r.median, 1.2)} |`,
    );
  }
  // A read makes one object call (quota and session); a write one more, to keep its D1 bookmark for
  // the token's next reads (read replicas with read-your-writes, src/rate-limit/read-your-writes.ts).
  const authenticated = selected.filter((s) => s.token && costs.has(s.name));
  if (authenticated.length > 0) {
    const expected = (s: (typeof authenticated)[number]) => (s.method === "GET" ? 1 : 2);
    const calls = authenticated.flatMap((s) => costs.get(s.name)!.objectCalls);
    const met = authenticated.every((s) => costs.get(s.name)!.objectCalls.every((n) => n === expected(s)));
    targets.push(
      `| every authenticated read: one DO call; every write: two (the second keeps its bookmark) | ${range(calls)} per request in ${authenticated.length} scenarios | ${met ? "**met**" : "**missed**"} |`,
    );
  }
  const api = selected.filter((s) => !s.floor && data.rounds.has(s.name));
  const apiErrors = api.map((s) => {
    const runs = (data.rounds.get(s.name) ?? []).filter(Boolean);
    const o = open.get(s.name);
    return {
      name: s.name,
      errors: runs.reduce((sum, r) => sum + serviceErrors(r), 0) + (o ? serviceErrors(o) : 0),
      closes: runs.reduce((sum, r) => sum + r.closes, 0) + (o ? o.closes : 0),
    };
  });
  const totalErrors = apiErrors.reduce((sum, e) => sum + e.errors, 0);
  const totalCloses = apiErrors.reduce((sum, e) => sum + e.closes, 0);
  targets.push(
    `| zero service errors (non-2xx, failed connects, timeouts) | ${totalErrors} in ${api.length} API scenarios, saturation and open-loop runs${
      totalErrors
        ? ` (${apiErrors
            .filter((e) => e.errors)
            .map((e) => `${e.name}: ${e.errors}`)
            .join("; ")})`
        : ""
    }; connection closes by the runtime, not counted: ${totalCloses} | ${totalErrors === 0 ? "**met**" : "**missed**"} |`,
  );

  if (data.startup && !("error" in data.startup)) {
    const { api: a, floor: f } = data.startup;
    targets.push(
      `| startup ≤ 2 × a one-route Hono Worker's, CPU (wrangler check startup's procedure, 50 µs sampling) | ${fmt(a.median / f.median)} × (${ms(a.median)} ms vs ${ms(f.median)} ms; see Startup) | ${verdictAtMost(a.median / f.median, 2)} |`,
      ...data.startup.cold.map(
        (m, index) =>
          `| cold ${COLD_REQUESTS[index]!.label} ≤ 5 × the one-route Hono Worker's startup, CPU | ${fmt(m.median / f.median, 1)} × (${ms(m.median)} ms) | ${verdictAtMost(m.median / f.median, 5)} |`,
      ),
    );
  }

  // ---- Startup ----
  const startup: string[] = [];
  if (data.startup && "error" in data.startup) {
    startup.push(`The startup measurement failed: ${data.startup.error}`);
  } else if (data.startup) {
    const { api: a, cold, floor: f } = data.startup;
    const row = (worker: string, m: StartupMeasure) =>
      `| ${worker} | ${ms(m.median)} | ${fmt(m.median / f.median, 1)} × | ${m.runs.map((v) => ms(v)).join(", ")} | ${m.profile} |`;
    startup.push(
      "| Worker | Startup CPU ms (median) | × floor | Runs | Profile |",
      "|---|---:|---:|---|---|",
      row("the API (wrangler.toml: build/worker.ts's entry)", a),
      ...cold.map((m, index) =>
        row(`cold: ${COLD_REQUESTS[index]!.label} (the startup and what its first call loads)`, m),
      ),
      row("floor: one-route Hono Worker (bench/floors/hello-hono.ts)", f),
      "",
      `The API's startup costs ${fmt(a.median / f.median, 1)} × the one-route Hono Worker's (${ms(a.median - f.median)} ms more). Route groups are modules of their own, loaded on their first request, and each operation's validators are built on the first request to it (build/worker.ts, src/http/lazy-routes.ts), so a cold isolate's first request also evaluates its own group's module and builds its own operation: the cold rows (bench/README.md says how to read them). Measured as \`wrangler check startup\` measures (a V8 profile of importing the Worker's main module in a local workerd; non-idle samples × the sampling interval), sampling every 50 µs instead of V8's default millisecond (bench/README.md), on this machine's CPU, not Cloudflare's.`,
    );
  } else {
    startup.push("Not measured (BENCH_STARTUP=0).");
  }
  if (data.firstRequests) {
    startup.push(
      "",
      "Each kind of first request from outside, on a freshly started `npm start` (a new one per kind, after a health check and the login), and the same request again: ms at the client, the local proxy included (bench/first-request.ts), medians of the starts.",
      "",
      ...("error" in data.firstRequests
        ? [`The measurement failed: ${data.firstRequests.error}`]
        : firstRequestTable(data.firstRequests)),
    );
  }

  // ---- Per round ----
  const detail = [
    "| Scenario | Round | Requests/s | CPU ms / request | workerd cores / other cores | closed-loop p50 / p99 ms | Service errors | Connection closes |",
    "|---|---:|---:|---:|---|---|---:|---:|",
  ];
  for (let round = 0; round < config.rounds; round++) {
    for (const s of selected) {
      const r = data.rounds.get(s.name)?.[round];
      if (!r) continue;
      detail.push(
        `| ${s.name} | ${round + 1} | ${fmt(r.rps, 0)} | ${ms(r.cpuMs)} | ${fmt(r.workerdCores)} / ${fmt(r.otherCores)} | ${ms(r.p50)} / ${ms(r.p99)} | ${serviceErrors(r)} | ${r.closes} |`,
      );
    }
  }
  const openDetail = [
    "| Scenario | Rate /s | Answered | p50 | p90 | p99 | max ms | Generator lag p99 / max ms | workerd / other cores | Service errors | Closes |",
    "|---|---:|---:|---:|---:|---:|---:|---|---|---:|---:|",
  ];
  for (const s of selected) {
    const o = open.get(s.name);
    if (!o) continue;
    openDetail.push(
      `| ${s.name} | ${fmt(o.rate, 0)} | ${o.completed} / ${o.scheduled} | ${ms(o.p50)} | ${ms(o.p90)} | ${ms(o.p99)} | ${ms(o.max)} | ${ms(o.lagP99)} / ${ms(o.lagMax)} | ${fmt(o.workerdCores)} / ${fmt(o.otherCores)} | ${serviceErrors(o)} | ${o.closes} |`,
    );
  }

  // Runs during which something outside the benchmark took CPU: their numbers are the noisy ones.
  const allRuns = [...[...data.rounds.values()].flat().filter(Boolean), ...open.values()];
  const busy = allRuns.filter((r) => r.otherCores >= 0.25);
  if (busy.length > 0) {
    data.warnings.push(
      `other processes used 0.25 cores or more during ${busy.length} of ${allRuns.length} runs (up to ${fmt(Math.max(...busy.map((r) => r.otherCores)))} of ${CORES}): those runs are noisy (their cores are in the per-run tables), and an open-loop rate set from saturated throughput can then exceed what the server gets`,
    );
  }

  const met = targets.filter((t) => t.endsWith("| **met** |")).length;
  const missed = targets.filter((t) => t.includes("| **missed**")).length;
  const stales = Object.values(data.drift).filter(Boolean).length;

  const notes = [
    ...[...data.rounds.entries()].flatMap(([name, runs]) =>
      runs.filter((r) => r?.notes).map((r) => `- ${name} (saturation): ${r.notes.trim()}`),
    ),
    ...[...open.entries()].filter(([, o]) => o.notes).map(([name, o]) => `- ${name} (open loop): ${o.notes.trim()}`),
  ];
  const cp = data.meta.checkpoint;
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  const tried = path.join(BENCH, "tried.md");

  return [
    "# Benchmark results",
    "",
    `Produced by \`npm run bench\` on ${data.started.toISOString().slice(0, 16).replace("T", " ")} UTC${FULL ? "" : " (partial or quick run)"}. How to read it, and why the numbers are what they are: bench/README.md.`,
    "",
    ...machine(),
    `- Databases: ${config.work.startsWith("/dev/shm") ? "on tmpfs (/dev/shm), so that the virtual disk's fsync latency does not decide the runs" : config.work}; two shards bound as deployed (DB, the directory and shard 0, holding every seeded partner; SHARD_1 migrated and empty), so every request is routed by its session's shard`,
    `- Data: ${data.meta.rows.applications} applications, ${data.meta.rows.orderLines} order lines, ${data.meta.rows.events} events over ${data.meta.partners.length} partners (1,000 for "1k", 100,000 for "100k")${
      cp
        ? `; seeded database checkpointed before caching (\`PRAGMA wal_checkpoint(TRUNCATE)\`): ${mb(cp.totalBefore)} with ${mb(cp.walBefore)} of WAL → ${mb(cp.totalAfter)} with ${mb(cp.walAfter)}${cp.note ? ` (${cp.note})` : ""}`
        : ""
    }`,
    `- Saturation: wrk, ${config.threads} threads, ${config.connections} connections, ${config.duration} s per run, ${config.rounds} round${config.rounds > 1 ? "s" : ""} (each fair floor runs just before its scenario in every round; ${config.warmup} s warm-up before each scenario's first run, none for send and refund)`,
    config.openRate === 0
      ? "- Open loop: skipped (BENCH_OPEN_RATE=0)"
      : `- Open loop: ${config.openRate !== undefined ? `${config.openRate} requests/s` : `${config.openFraction} × each scenario's median saturated throughput`}, ${config.openDuration} s, at most ${config.openConnections} connections, latency timed from each request's scheduled send`,
    `- CPU: workerd's utime + stime (/proc, ${CLK_TCK} ticks/s) over each run ÷ requests answered; workerd runs the Workers, the Durable Objects and D1's SQLite. Other processes used ${fmt(data.quiet)} of ${CORES} cores just before the start; the per-round table shows it per run`,
    ...data.warnings.map((w) => `- **Warning**: ${w}`),
    "",
    `**Targets: ${met} met, ${missed} missed${stales ? `, ${stales} fair floor${stales > 1 ? "s" : ""} stale` : ""}** (see Targets).`,
    "",
    "## Scenarios",
    "",
    "Medians over the rounds. \"Floor ÷ scenario, CPU\" is the fair floor's CPU per request divided by the scenario's, taken within each round and then the median: 1.00 means the scenario costs no more than its floor, 0.50 twice as much. The fair floors are the least a request can cost: the one rate-limit object call every authenticated request makes plus that request's own D1 statements (get's SQL, create's batch), nothing else (bench/floors/do-get.js, do-create.js). **When get's statement or create's batch change, the floor files must be updated**: every run compares them with the SQL the API sends (captured on the counting instance) and flags a stale floor in the targets. Login has no fair floor (PBKDF2 by design). The reference floors (a constant, a bare read, a bare insert into an index-free table, the object call + that read) show the runtime's own costs; the one with create's queue send adds to create's fair floor the wake-up create sends for its event, which the local runtime's queue (a Durable Object in the same workerd) counts as CPU and which in production is the Queues service's. D1 and object calls per request were sampled on a second instance of the API with `COUNT_BINDINGS=true`.",
    "",
    ...rows,
    "",
    "## Targets",
    "",
    ...targets,
    "",
    ...(existsSync(tried) ? ["## What was tried", "", readFileSync(tried, "utf8").trim(), ""] : []),
    "## Startup",
    "",
    ...startup,
    "",
    ...(notified
      ? [
          "## Notifications",
          "",
          `${notified.count} notifications to one healthy endpoint (a receiver on loopback answering 204 at once), in a runtime of their own with the queue consumer and the mailboxes (bench/notifications.ts): each round makes every event due again and overdue, runs the scheduled handler (the sweep wakes them up, a hundred per queue batch) and times it to the last arrival; D1 statements are those of the consumer and the mailboxes, counted on the binding (bench/notification-count.js), until every attempt is recorded.`,
          "",
          "| Round | Seconds | Delivered per second | D1 statements per delivered attempt |",
          "|---:|---:|---:|---:|",
          ...notified.rounds.map(
            (r, i) => `| ${i + 1} | ${fmt(r.seconds)} | ${fmt(r.perSecond, 0)} | ${fmt(r.statementsPerDelivery)} |`,
          ),
          "",
        ]
      : []),
    ...(data.sweep
      ? [
          "## The deadline sweep",
          "",
          `${data.sweep.applications} seeded approvals, their authorization a day past, lapsed by the Worker's scheduled handler (the Cron Trigger's entry) in ${data.sweep.runs} run(s): **${fmt(data.sweep.workerdMs / data.sweep.applications, 3)} ms of workerd CPU** and ${fmt(data.sweep.wallMs / data.sweep.applications, 3)} ms of wall time per lapsed application (each: its aggregate read in a page of 25, its plan, its guarded write with the lines and the event in the page's one batch, the wake-up enqueued). Measured after the rounds, on the same database.`,
          "",
        ]
      : []),
    ...(data.payouts
      ? [
          "## The payouts' closing",
          "",
          `${data.payouts.entries} settlement entries of yesterday (a sale, its fee and the fee's VAT per shipped application) closed by the Worker's scheduled handler into ${data.payouts.payouts} payout(s), one per partner, in ${data.payouts.runs} run(s): **${fmt(data.payouts.workerdMs / data.payouts.entries, 4)} ms of workerd CPU** and ${fmt(data.payouts.wallMs / data.payouts.entries, 4)} ms of wall time per entry (a closing reads its entries' sums, then writes the payout, takes its entries, checks them and lists them in four statements, whatever it takes). Measured after the rounds, on the same database.`,
          "",
        ]
      : []),
    "## Every saturation run",
    "",
    "Closed-loop latencies are wrk's at full load: they understate waiting (coordinated omission) and are kept for the record; the open-loop percentiles above are the latencies. Connection closes are the runtime closing keep-alive connections under saturation (bench/README.md), not service errors.",
    "",
    ...detail,
    "",
    ...(open.size > 0 ? ["## Open-loop runs", "", ...openDetail, ""] : []),
    ...(notes.length ? ["## Failed responses (first body per status)", "", ...notes, ""] : []),
  ].join("\n");
}
