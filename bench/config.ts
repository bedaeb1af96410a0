/**
 * The benchmark's knobs (environment variables, documented in bench/README.md) and paths, read once.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const BENCH = path.join(ROOT, "bench");
export const DATA = path.join(BENCH, ".data");
export const DB_ID = "bench-financing";

const env = process.env;
const number = (name: string, fallback: number): number => {
  const value = env[name];
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`${name}=${value} is not a number`);
  return parsed;
};

export const QUICK = env.BENCH_QUICK === "1";
export const ONLY = env.BENCH_ONLY ? new RegExp(env.BENCH_ONLY) : undefined;
export const FULL = !QUICK && !ONLY;

export const config = {
  /**
   * The working databases (D1 and the Durable Objects' SQLite files) live on tmpfs when the machine has
   * one: on the shared virtual disk every durable write waits for an fsync whose latency comes and goes
   * with the neighbours; on tmpfs the runs measure the runtime's CPU, the same for floors and the API.
   */
  work: env.BENCH_WORK ?? (existsSync("/dev/shm") ? "/dev/shm/financing-bench" : path.join(DATA, "work")),
  profile: env.BENCH_PROFILE === "1",
  inspectorPort: 9231,
  /** Seconds per measured saturation run. */
  duration: number("BENCH_DURATION", QUICK ? 3 : 10),
  connections: number("BENCH_CONNECTIONS", 64),
  threads: number("BENCH_THREADS", 2),
  /** Seconds of warm-up before each scenario's first measured run (round 1 only). */
  warmup: number("BENCH_WARMUP", QUICK ? 1 : 2),
  /** Rounds of saturation runs; every scenario runs once per round, its fair floor just before it. */
  rounds: Math.max(1, Math.floor(number("BENCH_ROUNDS", QUICK ? 1 : 3))),
  /** Open-loop runs: fixed arrival rate as a fraction of the scenario's median saturated throughput … */
  openFraction: number("BENCH_OPEN_FRACTION", 0.5),
  /** … or this fixed rate (requests per second) for every scenario when set; 0 skips the open-loop runs. */
  openRate: env.BENCH_OPEN_RATE === undefined || env.BENCH_OPEN_RATE === "" ? undefined : number("BENCH_OPEN_RATE", 0),
  openDuration: number("BENCH_OPEN_DURATION", QUICK ? 3 : 10),
  /** Sockets the open-loop generator may open at most (requests beyond wait for one, timed from their schedule). */
  openConnections: number("BENCH_OPEN_CONNECTIONS", 64),
  idleWait: number("BENCH_IDLE_WAIT", 120),
  /** BENCH_STARTUP=0 skips `wrangler check startup`; BENCH_STARTUP_RUNS profiles per Worker (median taken). */
  startup: env.BENCH_STARTUP !== "0",
  startupRuns: Math.max(1, Math.floor(number("BENCH_STARTUP_RUNS", QUICK ? 3 : 9))),
  /** Requests per scenario sent to the counting instance to sample D1 and Durable Object calls. */
  samples: 3,
  out: env.BENCH_OUT ?? (FULL ? path.join(BENCH, "results.md") : path.join(DATA, "results.partial.md")),
};

export const log = (message: string): void => console.log(message);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
