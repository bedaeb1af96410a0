/**
 * The load drivers.
 *
 * Saturation (throughput, CPU per request): wrk with bench/load.lua, BENCH_CONNECTIONS connections kept
 * busy for BENCH_DURATION seconds. Closed loop: each connection sends its next request when the previous
 * answer arrives, so the latencies it reports are those of a saturated server and understate waiting
 * (coordinated omission); they are kept for the record only.
 *
 * Open loop (latency): a small Node generator (wrk2, which fixes wrk's omission, is not in Debian). It
 * sends requests on a fixed schedule, rate r for BENCH_OPEN_DURATION seconds, whatever the answers do,
 * and times each from its *scheduled* send time to the end of its answer: a stall of the server shows
 * up in the latencies of every request scheduled during it, not as fewer requests. Requests go over at
 * most BENCH_OPEN_CONNECTIONS keep-alive sockets; one that finds them all busy waits, and that wait is
 * counted. The rate is set below saturation (BENCH_OPEN_FRACTION of the scenario's own saturated
 * throughput), so the percentiles are service time plus ordinary queueing, not a backlog. Few
 * connections with wrk would not do: a closed loop on any number of connections saturates a server
 * that is the bottleneck, and wrk would still time from the actual send.
 *
 * Errors are split. Service errors: non-2xx answers, failed connects, timeouts. Connection closes: wrk's
 * socket read and write errors, and ECONNRESET / EPIPE / "socket hang up" in the open loop: the local
 * runtime closing keep-alive connections (see bench/README.md); they are reported in their own column.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { BENCH, config } from "./config";
import { cpuBetween, cpuSnapshot } from "./cpu";
import { children } from "./runtime";

/** What to send. */
export interface LoadSpec {
  name: string;
  url: string;
  method: string;
  paths: string[];
  token?: string | undefined;
  /** "{{ORDER}}" becomes a string unique per request. */
  body?: string | undefined;
  /** Each wrk thread takes its own slice of the paths: no path is requested twice. */
  slice?: boolean | undefined;
}

export interface Cpu {
  /** workerd CPU time per completed request, ms. */
  cpuMs: number;
  workerdCores: number;
  otherCores: number;
}

export interface SaturationResult extends Cpu {
  requests: number;
  seconds: number;
  rps: number;
  /** Closed-loop latencies (coordinated omission: for the record only), ms. */
  p50: number;
  p99: number;
  non2xx: number;
  connect: number;
  timeout: number;
  /** Socket read and write errors: connections the server closed. */
  closes: number;
  /** Sliced runs: how many paths from the top of the list the run used, and threads that reused some. */
  used: number;
  wrapped: number;
  notes: string;
}

export interface OpenLoopResult extends Cpu {
  rate: number;
  scheduled: number;
  completed: number;
  achievedRate: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  connect: number;
  timeout: number;
  closes: number;
  /** How late the generator sent, ms (p99 and max): large values mean the generator, not the server, lagged. */
  lagP99: number;
  lagMax: number;
  notes: string;
}

export const serviceErrors = (r: { non2xx: number; connect: number; timeout: number }) =>
  r.non2xx + r.connect + r.timeout;

let fileCounter = 0;

export async function saturate(spec: LoadSpec, seconds: number, runId: string): Promise<SaturationResult> {
  const dir = path.join(config.work, "wrk");
  mkdirSync(dir, { recursive: true });
  const n = ++fileCounter;
  const pathsFile = path.join(dir, `paths-${n}.txt`);
  writeFileSync(pathsFile, `${spec.paths.join("\n")}\n`);
  let bodyFile = "";
  if (spec.body) {
    bodyFile = path.join(dir, `body-${n}.json`);
    writeFileSync(bodyFile, spec.body);
  }
  const args = ["-t", String(config.threads), "-c", String(config.connections), "-d", `${seconds}s`];
  args.push("--timeout", "30s", "-s", path.join(BENCH, "load.lua"), spec.url);
  const child = spawn("wrk", args, {
    env: {
      ...process.env,
      BENCH_METHOD: spec.method,
      BENCH_PATHS: pathsFile,
      BENCH_SLICE: spec.slice ? "1" : "0",
      BENCH_BODY: bodyFile,
      BENCH_TOKEN: spec.token ?? "",
      BENCH_THREADS: String(config.threads),
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
  const cpu = cpuBetween(before, cpuSnapshot());
  children.delete(child);
  const line = stdout.split("\n").find((l) => l.startsWith("BENCHJSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (${code}) for ${spec.name}:\n${stdout}\n${stderr}`);
  const r = JSON.parse(line.slice("BENCHJSON ".length)) as {
    requests: number;
    seconds: number;
    rps: number;
    p50: number;
    p99: number;
    non2xx: number;
    connect: number;
    read: number;
    write: number;
    timeout: number;
    used: number;
    wrapped: number;
    notes: string;
  };
  return {
    requests: r.requests,
    seconds: r.seconds,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    non2xx: r.non2xx,
    connect: r.connect,
    timeout: r.timeout,
    closes: r.read + r.write,
    used: r.used,
    wrapped: r.wrapped,
    notes: r.notes,
    cpuMs: cpu.workerdMs / Math.max(1, r.requests),
    workerdCores: cpu.workerdCores,
    otherCores: cpu.otherCores,
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const CLOSED = new Set(["ECONNRESET", "EPIPE"]);

/** Open loop: `rate` requests per second on a fixed schedule for `seconds`, timed from the schedule. */
export async function openLoop(spec: LoadSpec, rate: number, seconds: number, runId: string): Promise<OpenLoopResult> {
  const target = new URL(spec.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: config.openConnections });
  const total = Math.max(1, Math.round(rate * seconds));
  const interval = 1000 / rate;
  const latencies: number[] = [];
  const lags: number[] = [];
  const counts = { non2xx: 0, connect: 0, timeout: 0, closes: 0 };
  const seen = new Set<string>();
  let notes = "";
  const note = (key: string, text: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    notes += `${key} ${text.slice(0, 160).replace(/[\r\n"\\]/g, " ")}; `;
  };
  const baseHeaders: Record<string, string> = { Accept: "application/json" };
  if (spec.token) baseHeaders.Authorization = `Bearer ${spec.token}`;
  if (spec.body) baseHeaders["Content-Type"] = "application/json";

  let finished = 0;
  let resolveAll: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    resolveAll = resolve;
  });
  const done = () => {
    if (++finished === total) resolveAll();
  };

  const send = (i: number, scheduled: number) => {
    lags.push(performance.now() - scheduled);
    const body = spec.body?.replace("{{ORDER}}", `${runId}-o-${i}`);
    const headers = { ...baseHeaders, ...(body ? { "Content-Length": String(Buffer.byteLength(body)) } : {}) };
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      done();
      return true;
    };
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: spec.method,
        path: spec.paths[i % spec.paths.length],
        headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => {
          if ((res.statusCode ?? 0) >= 300) chunks.push(chunk);
        });
        res.on("end", () => {
          if (!settle()) return;
          latencies.push(performance.now() - scheduled);
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            counts.non2xx++;
            note(String(status), Buffer.concat(chunks).toString());
          }
        });
        res.on("error", (error: NodeJS.ErrnoException) => {
          if (!settle()) return;
          counts.closes++;
          note(error.code ?? "response error", error.message);
        });
      },
    );
    req.setTimeout(30_000, () => {
      if (settle()) counts.timeout++;
      req.destroy();
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (!settle()) return;
      if (CLOSED.has(error.code ?? "") || error.message === "socket hang up") counts.closes++;
      else if (error.code === "ECONNREFUSED") counts.connect++;
      else {
        counts.connect++;
        note(error.code ?? "error", error.message);
      }
    });
    req.end(body);
  };

  const before = cpuSnapshot();
  const start = performance.now() + 20;
  let next = 0;
  const pump = () => {
    const now = performance.now();
    while (next < total && start + next * interval <= now) {
      send(next, start + next * interval);
      next++;
    }
    if (next < total) setTimeout(pump, Math.max(0, start + next * interval - performance.now()));
  };
  setTimeout(pump, 20);
  await all;
  const cpu = cpuBetween(before, cpuSnapshot());
  agent.destroy();
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  return {
    rate,
    scheduled: total,
    completed: latencies.length,
    achievedRate: latencies.length / Math.max(elapsed, seconds),
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    ...counts,
    lagP99: percentile(lags, 99),
    lagMax: lags.at(-1) ?? Number.NaN,
    notes,
    cpuMs: cpu.workerdMs / Math.max(1, latencies.length),
    workerdCores: cpu.workerdCores,
    otherCores: cpu.otherCores,
  };
}
