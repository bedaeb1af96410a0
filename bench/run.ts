/**
 * `npm run bench`: the API on workerd beside its fair floors, CPU per request and throughput in
 * interleaved rounds, latency in open loop, startup CPU; writes bench/results.md. See bench/README.md.
 *
 * 1. Set-up (runtime.ts): bundle, seeded database (cached, checkpointed) copied to the working
 *    directory, one workerd with the API, its counting twin and the floors (floors.ts).
 * 2. Scenarios (scenarios.ts), their binding costs and SQL sampled on the counting twin; the fair
 *    floors' SQL compared with the API's.
 * 3. Rounds of saturation runs (load.ts, wrk), each fair floor just before its scenario, CPU per
 *    request from workerd's CPU time (cpu.ts); then one open-loop run per scenario for latency.
 * 4. The notification row (notifications.ts) in a runtime of its own; startup CPU (startup.ts) once workerd
 *    is stopped; the report (report.ts).
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { config, DATA, log, ONLY, QUICK, ROOT } from "./config";
import { drain, waitForQuietMachine } from "./cpu";
import { measureFirstRequests } from "./first-request";
import { fairFloorStatements, floorName, statementDrift } from "./floors";
import { type LoadSpec, type OpenLoopResult, openLoop, type SaturationResult, saturate } from "./load";
import { measureNotifications, type NotificationResult } from "./notifications";
import { measurePayouts, type PayoutsResult } from "./payouts";
import { startProfile } from "./profile";
import { median, type RunData, report } from "./report";
import { build, cleanup, ensureSeed, ensureTool, runtimeOutput, start, wranglerToml } from "./runtime";
import { type Cost, type Scenario, sampleCost, scenarios } from "./scenarios";
import { measureStartup } from "./startup";
import { measureSweep, type SweepResult } from "./sweep";

/**
 * BENCH_ONLY picks scenarios by name; what their targets compare with comes along: a list needs get,
 * send needs create, and every scenario its fair floor and its reference floor if it has one (create:
 * the floor with its queue send). The other reference floors run when nothing is picked or when
 * BENCH_ONLY names them.
 */
function select(all: Scenario[]): Scenario[] {
  const only = ONLY;
  if (!only) return all;
  const picked = new Set(all.filter((s) => only.test(s.name)).map((s) => s.name));
  for (const s of all.filter((x) => picked.has(x.name))) {
    if (s.kind === "list") picked.add("get application (100k)");
    if (s.kind === "send") picked.add("create application");
  }
  for (const s of all.filter((x) => picked.has(x.name))) {
    for (const floor of [s.fair, s.reference]) if (floor) picked.add(floorName(floor));
  }
  return all.filter((s) => picked.has(s.name));
}

/**
 * Send and refund use each application once: every run of theirs gets the ids no earlier run used and
 * reports how many it took from the top of that list (wrk threads take every n-th id, the open loop
 * one after another). A run that needs more than are left starts again from the first, and says so.
 */
function idsLeft() {
  const used = new Map<string, number>();
  return {
    paths(s: Scenario): string[] {
      if (!s.slice) return s.paths;
      const left = s.paths.slice(used.get(s.name) ?? 0);
      return left.length >= config.threads ? left : s.paths;
    },
    use(s: Scenario, count: number) {
      if (s.slice) used.set(s.name, (used.get(s.name) ?? 0) + count);
    },
  };
}

function line(name: string, r: SaturationResult): string {
  return `  ${name.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  ${r.cpuMs.toFixed(2).padStart(6)} ms CPU/req  errors ${r.non2xx + r.connect + r.timeout} closes ${r.closes}  cores workerd ${r.workerdCores.toFixed(2)} others ${r.otherCores.toFixed(2)}`;
}

async function main(): Promise<void> {
  const started = new Date();
  mkdirSync(DATA, { recursive: true });
  if (!ensureTool("wrk")) throw new Error("could not install wrk; install it (apt-get install wrk) and rerun");
  const { compatibilityDate, compatibilityFlags, vars } = wranglerToml();
  const buildDir = build();
  const { dir, meta } = await ensureSeed(compatibilityDate);

  rmSync(config.work, { recursive: true, force: true });
  rmSync(path.join(DATA, "runtime.log"), { force: true });
  mkdirSync(config.work, { recursive: true });
  cpSync(path.join(dir, "d1"), path.join(config.work, "d1"), { recursive: true });

  log("Checking that the machine is quiet…");
  const quiet = await waitForQuietMachine();
  log("Starting workerd (Miniflare, direct sockets)…");
  const { urls, mf } = await start(buildDir, compatibilityDate, compatibilityFlags, {
    ...vars,
    AUTH_PEPPER: meta.pepper,
  });
  const selected = select(await scenarios(mf, meta, urls));
  const warnings: string[] = [];

  log("Sampling D1 and Durable Object calls per request (COUNT_BINDINGS=true)…");
  const costs = new Map<string, Cost>();
  for (const s of selected) if (!s.floor) costs.set(s.name, await sampleCost(s, urls));
  const floorSql = await fairFloorStatements();
  const drift: RunData["drift"] = {};
  for (const [what, name] of [
    ["get", "get application (100k)"],
    ["create", "create application"],
  ] as const) {
    if (!costs.has(name)) continue;
    // The API's SQL as captured, to copy into the floor file when it changed.
    const file = path.join(DATA, `captured-${what}.json`);
    writeFileSync(file, JSON.stringify(costs.get(name)?.captured ?? null, null, 2));
    drift[what] = statementDrift(costs.get(name)?.captured, floorSql[what], path.relative(ROOT, file));
  }
  for (const [what, text] of Object.entries(drift)) {
    if (!text) log(`  the ${what} fair floor runs the API's own SQL`);
    else {
      const warning = `the ${what} fair floor is stale: ${text}`;
      warnings.push(warning);
      log(`  warning: ${warning}`);
    }
  }

  const ids = idsLeft();
  const spec = (s: Scenario): LoadSpec => ({ ...s, url: urls[s.base], paths: ids.paths(s) });
  const runId = Date.now().toString(36);

  // A sliced scenario that ran out of ids made some request again: a warning, unless that is the
  // same request (refund; a second send is refused).
  const reusedIds = (s: Scenario, text: string) => {
    if (s.repeatable) log(`  ${text} (the same request again, every answer counted)`);
    else warnings.push(text);
  };
  const rounds = new Map<string, SaturationResult[]>();
  for (let round = 1; round <= config.rounds; round++) {
    log(
      `\nRound ${round} of ${config.rounds}: wrk, ${config.threads} threads, ${config.connections} connections, ${config.duration} s per run`,
    );
    for (const s of selected) {
      await drain();
      if (round === 1 && !s.slice && config.warmup > 0) {
        await saturate({ ...s, url: urls[s.base] }, config.warmup, `${runId}w`);
        await drain();
      }
      const load = spec(s);
      const result = await saturate(load, config.duration, `${runId}r${round}`);
      if (!rounds.has(s.name)) rounds.set(s.name, []);
      rounds.get(s.name)![round - 1] = result;
      ids.use(s, result.used);
      if (s.slice && result.wrapped > 0) {
        reusedIds(
          s,
          `${s.name} came to the end of its ${load.paths.length} ids in round ${round}: ${result.wrapped} of ${config.threads} threads reused some`,
        );
      }
      log(line(s.name, result));
      // A floor that fails its requests measures its failure, which costs less than the work: every ratio
      // to it would be wrong (a floor falls behind what the API's own objects and tables ask for).
      const failed = result.non2xx + result.connect + result.timeout;
      if (s.floor && failed > 0) {
        throw new Error(
          `${s.name}: ${failed} of its requests failed, so it measures nothing; its cause is in ${path.join(DATA, "runtime.log")} (bench/floors/)`,
        );
      }
    }
  }

  const open = new Map<string, OpenLoopResult>();
  if (config.openRate !== 0) {
    log(`\nOpen loop: ${config.openDuration} s per scenario at a fixed rate`);
    for (const s of selected.filter((x) => !x.floor || x.floor === "getFair" || x.floor === "createFair")) {
      const wanted =
        config.openRate ?? config.openFraction * median((rounds.get(s.name) ?? []).filter(Boolean).map((r) => r.rps));
      if (!(wanted > 0)) continue;
      await drain();
      const load = spec(s);
      // A scenario whose ids serve once (send) runs at most as fast as the ids it has left allow: past
      // them every request would be a second send, refused with 422, which measures nothing.
      const idsLast = s.slice && !s.repeatable ? load.paths.length / config.openDuration : Number.POSITIVE_INFINITY;
      const rate = Math.min(wanted, idsLast);
      if (rate < wanted)
        log(
          `  ${s.name}: ${rate.toFixed(0)}/s rather than ${wanted.toFixed(0)}/s, for its ${load.paths.length} ids left`,
        );
      const result = await openLoop(load, rate, config.openDuration, `${runId}o`);
      ids.use(s, Math.min(result.scheduled, load.paths.length));
      if (s.slice && result.scheduled > load.paths.length) {
        reusedIds(s, `${s.name} made ${result.scheduled} open-loop requests over ${load.paths.length} ids`);
      }
      open.set(s.name, result);
      log(
        `  ${s.name.padEnd(34)} ${rate.toFixed(0).padStart(6)}/s  p50 ${result.p50.toFixed(1)} p90 ${result.p90.toFixed(1)} p99 ${result.p99.toFixed(1)} ms  answered ${result.completed}/${result.scheduled}  errors ${result.non2xx + result.connect + result.timeout} closes ${result.closes}  lag p99 ${result.lagP99.toFixed(1)} ms`,
      );
    }
  }

  if (config.profile) {
    log("\nProfiles (BENCH_PROFILE=1): one more saturation run per API scenario, not in the results");
    for (const s of selected.filter((x) => x.base === "api")) {
      await drain();
      const file = path.join(DATA, `profile-${s.name.replace(/\W+/g, "-")}`);
      const stop = await startProfile(config.inspectorPort, "api", file);
      ids.use(s, (await saturate(spec(s), config.duration, `${runId}p`)).used);
      await stop();
      log(`  ${s.name}: ${path.relative(ROOT, file)}.{cpuprofile,txt}`);
    }
  }

  let sweep: SweepResult | undefined;
  if (!ONLY || ONLY.test("sweep")) {
    log("\nThe deadline sweep");
    sweep = await measureSweep(mf, QUICK ? 500 : 5_000);
  }
  let payouts: PayoutsResult | undefined;
  if (!ONLY || ONLY.test("payouts")) {
    log("\nThe payouts' closing");
    payouts = await measurePayouts(mf, QUICK ? 1_000 : 10_000);
  }

  await drain();
  await cleanup();
  let notifications: NotificationResult | undefined;
  if (!ONLY || ONLY.test("notifications")) {
    log("\nNotifications to one healthy endpoint (a runtime of their own, with the queue consumer and the mailboxes)");
    await drain();
    notifications = await measureNotifications(buildDir, meta.pepper, QUICK ? 100 : 500, config.rounds);
  }
  let startup: RunData["startup"];
  let firstRequests: RunData["firstRequests"];
  if (config.startup) {
    try {
      startup = await measureStartup();
    } catch (error) {
      startup = { error: error instanceof Error ? error.message.slice(0, 500) : String(error) };
      log(`  ${startup.error}`);
    }
    try {
      firstRequests = await measureFirstRequests();
    } catch (error) {
      firstRequests = { error: error instanceof Error ? error.message.slice(0, 500) : String(error) };
      log(`  ${firstRequests.error}`);
    }
  }

  const text = report({
    started,
    quiet,
    meta,
    selected,
    rounds,
    open,
    costs,
    drift,
    startup,
    firstRequests,
    sweep,
    payouts,
    notifications,
    warnings,
  });
  writeFileSync(config.out, `${text}\n`);
  log(`\n${text}\nWritten to ${path.relative(ROOT, config.out)}`);
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.stack : error);
    if (runtimeOutput.length) console.error(`\nLast runtime output:\n${runtimeOutput.join("")}`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
