/**
 * Operating beside a running server, shown (docs/operations.md). It starts its own `npm start` servers
 * on free ports, in this checkout and on its local database, with the quota raised so that the loops of
 * reads meet no 429, and answers with the count of each status:
 *
 *   npx tsx scripts/beside-a-server.ts operators     three loops of `GET /financing/v1/applications?limit=1`
 *                                                    while `npm run partner:create`, then
 *                                                    `partner:secret -- --rotate`, then
 *                                                    `partner:quota -- --set` run 10 times each
 *   npx tsx scripts/beside-a-server.ts two-servers   the same loops against one server while a second
 *                                                    one is stopped and started again 3 times, and a
 *                                                    deploy dry run builds
 *
 * It exits non-zero if a read answered anything but 2xx or a command failed. The partners it creates
 * (`beside-<time>-<n>`) stay in the local database.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO, freePort } from "./lib";

const logs = mkdtempSync(path.join(tmpdir(), "beside-a-server-"));

/** The ports of the servers started, whose build folders (dist/dev-<port>) go at the end. */
const ports = new Set<number>();

/** `npm start` on `port`, in its own process group (so that stopping it stops wrangler and workerd). */
async function start(port: number): Promise<ChildProcess> {
  ports.add(port);
  const log = createWriteStream(path.join(logs, `server-${port}.log`), { flags: "a" });
  const child = spawn("npm", ["start", "--", "--port", String(port), "--var", "RATE_LIMIT_REQUESTS:100000000"], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(300)) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
    if (health?.status === 200) return child;
  }
  throw new Error(`npm start on port ${port} did not answer /v1/health (its log: ${logs})`);
}

async function stop(child: ChildProcess): Promise<void> {
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  if (ended() || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-child.pid, "SIGTERM");
  await Promise.race([exited, sleep(10_000)]);
  if (!ended()) process.kill(-child.pid, "SIGKILL");
}

/** Three loops of list reads as the demo partner, each with its own token, until `stop()`. */
async function readLoops(port: number) {
  const base = `http://127.0.0.1:${port}`;
  const counts: Record<number, number> = {};
  const failures: string[] = [];
  let running = true;
  const loop = async () => {
    const login = await fetch(`${base}/authentication/v1/partner`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: DEMO.username, password: DEMO.password }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    while (running) {
      const res = await fetch(`${base}/financing/v1/applications?limit=1`, {
        headers: { Authorization: `Bearer ${accessToken}` },
      }).catch((error: Error) => ({ status: 0, text: async () => error.message }));
      counts[res.status] = (counts[res.status] ?? 0) + 1;
      const body = await res.text();
      if (res.status < 200 || res.status > 299) failures.push(`${res.status} ${body.slice(0, 300)}`);
    }
  };
  const loops = [loop(), loop(), loop()];
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return { counts, failures };
    },
  };
}

/** Runs an npm script (asynchronously: the loops keep reading meanwhile); answers how it went. */
async function npm(args: string[]): Promise<{ ok: boolean; ms: number; output: string }> {
  const started = Date.now();
  const child = spawn("npm", ["run", "--silent", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  return { ok: code === 0, ms: Date.now() - started, output };
}

function commands(label: string, runs: { ok: boolean; ms: number; output: string }[]): boolean {
  const failed = runs.filter((r) => !r.ok);
  const times = runs.map((r) => (r.ms / 1000).toFixed(1)).join(", ");
  const busy = runs.reduce((n, r) => n + (r.output.match(/local database was busy/g)?.length ?? 0), 0);
  console.log(
    `${label}: ${runs.length - failed.length} of ${runs.length} succeeded, ${busy} attempts met a busy database ` +
      `and were run again (seconds each: ${times})`,
  );
  for (const run of failed) console.log(`  failed: ${run.output.trim().split("\n").slice(-3).join(" | ")}`);
  return failed.length === 0;
}

function reads(label: string, result: { counts: Record<number, number>; failures: string[] }): boolean {
  const total = Object.values(result.counts).reduce((a, b) => a + b, 0);
  console.log(`${label}: ${total} reads, by status ${JSON.stringify(result.counts)}`);
  for (const failure of result.failures.slice(0, 5)) console.log(`  ${failure}`);
  return result.failures.length === 0;
}

async function operators(): Promise<boolean> {
  const port = await freePort();
  const server = await start(port);
  try {
    const loops = await readLoops(port);
    const stamp = Date.now();
    const created = [];
    for (let n = 0; n < 10; n++)
      created.push(await npm(["partner:create", "--", "--username", `beside-${stamp}-${n}`]));
    const rotated = [];
    for (let n = 0; n < 10; n++) {
      rotated.push(await npm(["partner:secret", "--", "--username", `beside-${stamp}-${n}`, "--rotate"]));
    }
    const quotas = [];
    for (let n = 0; n < 10; n++) {
      quotas.push(await npm(["partner:quota", "--", "--username", `beside-${stamp}-${n}`, "--set", "2GiB"]));
    }
    const readsOk = reads("reads beside the commands", await loops.stop());
    return [
      commands("partner:create", created),
      commands("partner:secret --rotate", rotated),
      commands("partner:quota --set", quotas),
      readsOk,
    ].every(Boolean);
  } finally {
    await stop(server);
  }
}

async function twoServers(): Promise<boolean> {
  const [first, second] = [await freePort(), await freePort()];
  const servers = [await start(first), await start(second)];
  try {
    const loops = await readLoops(first);
    // Each start waits for the second server's health to answer 200 (and throws if it never does).
    for (let round = 0; round < 3; round++) {
      await stop(servers[1]!);
      servers[1] = await start(second);
    }
    const dryRun = await npm(["deploy:check"]);
    console.log(
      `the second server stopped and started again 3 times; a deploy dry run: ${dryRun.ok ? "ok" : "failed"}`,
    );
    const readsOk = reads("reads of the first server", await loops.stop());
    return readsOk && dryRun.ok;
  } finally {
    await Promise.all(servers.map(stop));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const modes: Record<string, () => Promise<boolean>> = { operators, "two-servers": twoServers };
const mode = modes[process.argv[2] ?? ""];
if (!mode) {
  console.error("usage: npx tsx scripts/beside-a-server.ts operators|two-servers");
  process.exit(2);
}
const ok = await mode();
for (const port of ports) rmSync(`dist/dev-${port}`, { recursive: true, force: true });
console.log(`${ok ? "ok" : "FAILED"} (server logs: ${logs})`);
process.exit(ok ? 0 : 1);
