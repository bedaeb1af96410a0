/**
 * Startup CPU of the Worker beside a one-route Hono Worker, the way `wrangler check startup` takes it:
 * wrangler bundles the Worker (`wrangler deploy --dry-run --outfile`, the form it uploads), a local
 * workerd (Miniflare) runs a wrapper whose first request imports the bundle's main module, and a V8 CPU
 * profile covers that import (compiling the bundle and evaluating its top level: Hono, the middleware,
 * the route table). It works offline. What `check startup` itself leaves at V8's default, one sample per
 * millisecond or so, is too coarse for Workers that start in 2 to 6 ms (a 2 ms startup is two samples,
 * and runs of the floor read 0.0 to 8.4 ms), so the profile here samples every 50 µs
 * (`Profiler.setSamplingInterval`); otherwise it is wrangler's procedure, the same wrapper. The CPU of a
 * startup is the profile's non-idle samples × the sampling interval. The three Workers are profiled in
 * turn, BENCH_STARTUP_RUNS times each (interleaved, so that a busy moment of the machine hits all three),
 * and each median kept. The floor (bench/floors/hello-hono.ts) is bundled the same way, with the API's
 * compatibility date and flags.
 *
 * `npm run bench` runs this after the load (workerd stopped); on its own: `npx tsx bench/startup.ts`
 * (Node 20 needs `NODE_OPTIONS=--experimental-websocket` for the inspector's WebSocket; the npm scripts set it).
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Miniflare } from "miniflare";
import { BENCH, config, DATA, log, ROOT } from "./config";
import { devtools } from "./profile";

/** The profile's sampling interval, µs: 20 samples per millisecond of startup. */
export const SAMPLING_INTERVAL_US = 50;

export interface StartupMeasure {
  label: string;
  /** CPU ms of each run, and their median. */
  runs: number[];
  median: number;
  /** The last run's profile, for Chrome DevTools. */
  profile: string;
}

/** A kind of first request, and what a cold isolate evaluates for it beside the Worker's startup. */
export interface ColdRequest {
  label: string;
  /** The route of the manifest (generated/routes.ts) the request mounts: an operation, or a page's router. */
  route: { method: string; path: string };
}

/** The cold rows: each request's first call in a new isolate. */
export const COLD_REQUESTS: ColdRequest[] = [
  { label: "GET of an application", route: { method: "GET", path: "/financing/v1/applications/:applicationId" } },
  { label: "create", route: { method: "POST", path: "/financing/v1/applications" } },
  {
    label: "an order operation (send)",
    route: { method: "PUT", path: "/financing/v1/applications/:applicationId/order/send" },
  },
  // The gateway is a page router, listed by its prefix (build/manifest.ts).
  { label: "the gateway page", route: { method: "ALL", path: "/gateway/*" } },
  { label: "the notifications log", route: { method: "GET", path: "/financing/v1/notifications" } },
  { label: "/openapi.json", route: { method: "GET", path: "/openapi.json" } },
];

export interface StartupResult {
  api: StartupMeasure;
  /** Per cold request (COLD_REQUESTS, in order): the startup and what that first request loads. */
  cold: StartupMeasure[];
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
 * the lower quartile of the gaps between samples (about the interval asked for): the profile has long gaps where
 * workerd took no samples, so a mean or, for a Worker with a handful of samples, a median would
 * overstate it. Resolution: one sample, SAMPLING_INTERVAL_US.
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

const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
};
const wrangler = (args: string[]) => run(path.join(ROOT, "node_modules/.bin/wrangler"), args);

/** A Worker's upload form as `wrangler deploy --dry-run --outfile` writes it: metadata and modules. */
async function readBundle(file: string): Promise<{ main: string; modules: { path: string; contents: string }[] }> {
  const bytes = readFileSync(file);
  const boundary = bytes.subarray(2, bytes.indexOf(10)).toString().trim();
  const form = await new Response(bytes, {
    headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
  }).formData();
  const metadata = JSON.parse(String(form.get("metadata"))) as { main_module?: string };
  if (!metadata.main_module) throw new Error(`${file}: not an ES module Worker`);
  const parts: [string, Blob][] = [];
  form.forEach((value, name) => {
    if (value instanceof Blob && value.type !== "application/source-map") parts.push([name, value]);
  });
  const modules = await Promise.all(
    parts.map(async ([name, value]) => {
      if (value.type !== "application/javascript+module") throw new Error(`${file}: module ${name} is ${value.type}`);
      return { path: name, contents: await value.text() };
    }),
  );
  return { main: metadata.main_module, modules };
}

interface Target {
  label: string;
  bundle: { main: string; modules: { path: string; contents: string }[] };
  profile: string;
  runs: number[];
}

/** One startup profile of a bundle: wrangler's wrapper, a fresh workerd, the import timed by V8's profiler. */
async function profileStartup(
  target: Target,
  compatibilityDate: string,
  compatibilityFlags: string[],
): Promise<Profile> {
  const mf = new Miniflare({
    name: "profiler",
    compatibilityDate,
    compatibilityFlags,
    modulesRoot: "/",
    modules: [
      {
        type: "ESModule",
        path: randomUUID(),
        // A cold request's entry also loads what that request does (its `cold` export), after the import.
        contents: `export default { async fetch() { const main = await import(${JSON.stringify(target.bundle.main)}); await main.cold?.(); return new Response("ok"); } };`,
      },
      ...target.bundle.modules.map((m) => ({ type: "ESModule" as const, path: m.path, contents: m.contents })),
    ],
    inspectorPort: 0,
  });
  try {
    await mf.ready;
    const { send, close } = await devtools(new URL("/core:user:profiler", (await mf.getInspectorURL()).href).href);
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: SAMPLING_INTERVAL_US });
    await send("Profiler.start");
    await (await mf.dispatchFetch("https://example.com")).text();
    const { profile } = (await send("Profiler.stop")) as { profile: Profile };
    close();
    return profile;
  } finally {
    await mf.dispose();
  }
}

export async function measureStartup(runs = config.startupRuns): Promise<StartupResult> {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  const compatibilityDate = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!compatibilityDate) throw new Error("wrangler.toml has no compatibility_date");
  const flags = /^compatibility_flags\s*=\s*(\[[^\]]*\])/m.exec(toml)?.[1];
  const compatibilityFlags = flags ? (JSON.parse(flags) as string[]) : [];
  const dir = path.join(DATA, "startup");
  mkdirSync(dir, { recursive: true });
  // A wrangler config beside the API's, with its compatibility date and flags.
  const configFor = (name: string, lines: string[]) => {
    const file = path.join(dir, `${name}.toml`);
    const compatibility = [
      `compatibility_date = "${compatibilityDate}"`,
      ...(flags ? [`compatibility_flags = ${flags}`] : []),
    ];
    writeFileSync(file, [`name = "bench-${name}"`, ...lines, ...compatibility, ""].join("\n"));
    return file;
  };
  const floorConfig = configFor("hello-hono", [
    `main = ${JSON.stringify(path.join(BENCH, "floors", "hello-hono.ts"))}`,
  ]);
  // Each cold request's variant is the API built as it is (build/worker.ts, so with the same route
  // modules), from an entry whose `cold` export then loads the request's module as the Worker would
  // (the manifest, generated/routes.ts), and builds an operation's router, as the first request to it does.
  const coldTargets = COLD_REQUESTS.map((request, index): [string, string[]] => {
    const name = `api-cold-${index + 1}`;
    const out = path.join(dir, name);
    const entry = path.join(dir, `${name}.js`);
    const src = path.join(ROOT, "src");
    writeFileSync(
      entry,
      [
        `// ${request.label}: generated by bench/startup.ts`,
        `import { ROUTES } from ${JSON.stringify(path.join(ROOT, "generated", "routes"))};`,
        `export * from ${JSON.stringify(path.join(src, "index"))};`,
        `export { default } from ${JSON.stringify(path.join(src, "index"))};`,
        "export async function cold() {",
        `  const wanted = ${JSON.stringify(request.route)};`,
        "  const listed = ROUTES.filter((r) => r.method === wanted.method && r.path === wanted.path);",
        "  if (listed.length !== 1) throw new Error(JSON.stringify(wanted) + ': not one route of the manifest');",
        "  const loaded = await listed[0].load();",
        '  if ("serve" in loaded) await loaded.serve();',
        "}",
        "",
      ].join("\n"),
    );
    run("npm", ["run", "--silent", "build", "--", "--entry", entry, "--outdir", out]);
    const config = configFor(name, [
      `main = ${JSON.stringify(path.join(out, `${name}.mjs`))}`,
      "no_bundle = true",
      "find_additional_modules = true",
      `base_dir = ${JSON.stringify(out)}`,
      'rules = [{ type = "ESModule", globs = ["worker-modules/*.mjs"] }]',
    ]);
    return [name, ["--config", config]];
  });
  log(
    `Startup CPU (wrangler check startup's procedure, ${SAMPLING_INTERVAL_US} µs sampling, ${runs} interleaved runs each)…`,
  );
  const targets: Target[] = [];
  for (const [label, deployArgs] of [
    ["api", []] as [string, string[]],
    ...coldTargets,
    ["hello-hono", ["--config", floorConfig]] as [string, string[]],
  ]) {
    const bundle = path.join(dir, `${label}.bundle`);
    wrangler(["deploy", ...deployArgs, "--dry-run", `--outfile=${bundle}`]);
    targets.push({ label, bundle: await readBundle(bundle), profile: path.join(dir, `${label}.cpuprofile`), runs: [] });
  }
  for (let i = 0; i < runs; i++) {
    for (const target of targets) {
      // No Worker starts in no time: a profile without one busy sample missed the import (it happens
      // to the floor's few samples) and is taken again, at most twice, rather than counted as 0 ms.
      let cpu = 0;
      for (let attempt = 0; cpu === 0 && attempt < 3; attempt++) {
        const profile = await profileStartup(target, compatibilityDate, compatibilityFlags);
        writeFileSync(target.profile, JSON.stringify(profile));
        cpu = startupCpuMs(profile);
      }
      target.runs.push(cpu);
    }
  }
  const measures = targets.map(
    (t): StartupMeasure => ({
      label: t.label,
      runs: t.runs,
      median: median(t.runs),
      profile: path.relative(ROOT, t.profile),
    }),
  );
  const api = measures[0]!;
  const floor = measures.at(-1)!;
  const cold = measures.slice(1, -1);
  log(
    `  api ${api.median.toFixed(2)} ms, one-route Hono ${floor.median.toFixed(2)} ms: ${(api.median / floor.median).toFixed(2)} ×`,
  );
  for (const [index, measure] of cold.entries()) {
    log(
      `  cold ${COLD_REQUESTS[index]!.label}: ${measure.median.toFixed(1)} ms, ${(measure.median / floor.median).toFixed(1)} × the floor`,
    );
  }
  return { api, cold, floor };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await measureStartup();
  for (const m of [result.api, ...result.cold, result.floor]) {
    log(
      `${m.label}: median ${m.median.toFixed(1)} ms (runs ${m.runs.map((v) => v.toFixed(1)).join(", ")}); ${m.profile}`,
    );
  }
}
