/**
 * CPU accounting from /proc: the CPU time of the benchmark's workerd (every Worker, Durable Object and
 * the D1 engine run in that one process), of this process tree, and of the whole machine.
 *
 * CPU per request = workerd's utime + stime over a measured run ÷ the requests completed in it. The
 * requests still in flight when the load generator stops (at most one per connection) are worked on
 * inside the interval but not counted, so the figure is high by at most connections ÷ requests (about
 * 1 % at 64 connections and 6,000 requests).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";
import { config, log, sleep } from "./config";

export const CORES = os.cpus().length;

/** Clock ticks per second of /proc's utime and stime (100 on Linux almost everywhere). */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface CpuSnapshot {
  /** Ticks: the machine's busy time, its total time (all cores), our workerd's, this process tree's. */
  busy: number;
  total: number;
  workerd: number;
  own: number;
  /** Wall clock, ms. */
  at: number;
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

/** Busy ticks of the machine, of our workerd, and of this process tree (wrk included once reaped). */
export function cpuSnapshot(): CpuSnapshot {
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
  return { busy, total, workerd, own, at: Date.now() };
}

export interface CpuUse {
  /** Cores used on average by our workerd, and by everything outside this benchmark. */
  workerdCores: number;
  otherCores: number;
  /** CPU time of our workerd in the interval, ms. */
  workerdMs: number;
}

export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuUse {
  const total = Math.max(1, b.total - a.total);
  return {
    workerdCores: ((b.workerd - a.workerd) / total) * CORES,
    otherCores: Math.max(0, ((b.busy - a.busy - (b.own - a.own)) / total) * CORES),
    workerdMs: ((b.workerd - a.workerd) * 1000) / CLK_TCK,
  };
}

/** Waits until workerd has finished the previous run's backlog (requests left in flight). */
export async function drain(): Promise<void> {
  for (let i = 0; i < 120; i++) {
    const a = cpuSnapshot();
    await sleep(250);
    if (cpuBetween(a, cpuSnapshot()).workerdCores < 0.05) return;
  }
  log("  warning: workerd still busy after 30 s");
}

/** Before starting: wait (BENCH_IDLE_WAIT seconds at most) for other work on the machine to calm down. */
export async function waitForQuietMachine(): Promise<number> {
  const limit = config.idleWait;
  const started = Date.now();
  let polls = 0;
  for (;;) {
    const a = cpuSnapshot();
    await sleep(2000);
    const others = cpuBetween(a, cpuSnapshot()).otherCores;
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
