/**
 * Startup CPU of the Worker beside a one-route Hono Worker, with `wrangler check startup`: wrangler
 * bundles the Worker (as `wrangler deploy` does), starts it in a local workerd and writes a V8 CPU
 * profile of the startup phase (module evaluation: here Hono, zod schemas, the OpenAPI registry,
 * Drizzle's schema). It works offline. The CPU of a startup is taken as the non-idle samples of that
 * profile × the sampling interval (about 1 ms: a startup of 60 ms is ± 2 %, one of 2 ms ± 50 %); each
 * Worker is profiled BENCH_STARTUP_RUNS times and the median kept. The floor (bench/floors/hello-hono.ts) is
 * bundled the same way, with the API's compatibility date.
 *
 * `npm run bench` runs this after the load (workerd stopped); on its own: `npx tsx bench/startup.ts`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { BENCH, config, DATA, log, ROOT } from "./config";

export interface StartupMeasure {
  label: string;
  /** CPU ms of each run, and their median. */
  runs: number[];
  median: number;
  /** The last run's profile, for Chrome DevTools. */
  profile: string;
}

export interface StartupResult {
  api: StartupMeasure;
  /** The API with the applications group loaded at startup: what a cold GET evaluates (bench/floors/api-cold-get.js). */
  coldGet: StartupMeasure;
  floor: StartupMeasure;
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples?: number[];
  timeDeltas?: number[];
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * CPU ms in a startup profile: the samples that are not "(idle)" × the sampling interval. The interval is
 * the lower quartile of the gaps between samples (about 1.1 ms here): the profile has long gaps where
 * workerd took no samples, so a mean or, for a Worker with a handful of samples, a median would
 * overstate it. Resolution: one sample, about 1 ms.
 */
export function startupCpuMs(profile: Profile): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  const samples = profile.samples ?? [];
  const gaps = (profile.timeDeltas ?? [])
    .slice(1)
    .filter((d) => d > 0)
    .sort((a, b) => a - b);
  if (gaps.length === 0) return 0;
  const interval = gaps[Math.floor((gaps.length - 1) / 4)]!;
  const busy = samples.filter((id) => !idle.has(id)).length;
  return (busy * interval) / 1000;
}

const wrangler = (args: string[]) => {
  const result = spawnSync(path.join(ROOT, "node_modules/.bin/wrangler"), args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
};

/**
 * Bundles once (`wrangler deploy --dry-run --outfile`, the bundle `wrangler check startup` builds itself,
 * which ignores --config), then profiles that bundle `runs` times (`check startup --worker`).
 */
function checkStartup(label: string, deployArgs: string[], runs: number): StartupMeasure {
  const dir = path.join(DATA, "startup");
  mkdirSync(dir, { recursive: true });
  const name = label.replace(/\W+/g, "-");
  const bundle = path.join(dir, `${name}.bundle`);
  const profile = path.join(dir, `${name}.cpuprofile`);
  wrangler(["deploy", ...deployArgs, "--dry-run", `--outfile=${bundle}`]);
  const values: number[] = [];
  for (let i = 0; i < runs; i++) {
    wrangler(["check", "startup", "--worker", bundle, "--outfile", profile]);
    values.push(startupCpuMs(JSON.parse(readFileSync(profile, "utf8")) as Profile));
  }
  return { label, runs: values, median: median(values), profile: path.relative(ROOT, profile) };
}

export function measureStartup(runs = config.startupRuns): StartupResult {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const flags = /^compatibility_flags\s*=\s*(\[[^\]]*\])/m.exec(toml)?.[1];
  const dir = path.join(DATA, "startup");
  mkdirSync(dir, { recursive: true });
  const floorConfig = path.join(dir, "hello-hono.toml");
  writeFileSync(
    floorConfig,
    [
      'name = "bench-hello-hono"',
      `main = ${JSON.stringify(path.join(BENCH, "floors", "hello-hono.ts"))}`,
      `compatibility_date = "${compatibilityDate}"`,
      ...(flags ? [`compatibility_flags = ${flags}`] : []),
      "",
    ].join("\n"),
  );
  log(`Startup CPU (wrangler check startup, ${runs} runs each)…`);
  const api = checkStartup("api", [], runs);
  const coldGet = checkStartup("api-cold-get", [path.join(BENCH, "floors", "api-cold-get.js")], runs);
  const floor = checkStartup("hello-hono", ["--config", floorConfig], runs);
  log(
    `  api ${api.median.toFixed(1)} ms, one-route Hono ${floor.median.toFixed(1)} ms: ${(api.median / floor.median).toFixed(1)} ×`,
  );
  log(`  the API with the applications group (a cold GET's modules) ${coldGet.median.toFixed(1)} ms`);
  return { api, coldGet, floor };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = measureStartup();
  for (const m of [result.api, result.coldGet, result.floor]) {
    log(
      `${m.label}: median ${m.median.toFixed(1)} ms (runs ${m.runs.map((v) => v.toFixed(1)).join(", ")}); ${m.profile}`,
    );
  }
}
