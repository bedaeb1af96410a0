/**
 * What the checks beside a local server share (the README test, the cron test): commands each in its
 * own process group, so that stopping it stops npm, wrangler and workerd, with its output kept; one
 * line per check; and the end, which always stops what was started and removes what was made.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";

const root = path.join(import.meta.dirname, "..");

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A command in its own process group, its output kept; `env` adds to the environment. */
export class Running {
  output = "";
  readonly child: ChildProcess;
  constructor(command: string, args: string[], env: Record<string, string> = {}) {
    this.child = spawn(command, args, {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", ...env },
    });
    this.child.stdout?.on("data", (chunk: Buffer) => (this.output += chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => (this.output += chunk));
  }

  get ended(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Its exit code (null when a signal ended it), once it ends. */
  done(): Promise<number | null> {
    if (this.ended) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.once("exit", resolve));
  }

  async stop(): Promise<void> {
    if (this.ended || this.child.pid === undefined) return;
    const signal = (name: NodeJS.Signals) => {
      try {
        process.kill(-this.child.pid!, name);
      } catch {
        // The group is gone already.
      }
    };
    signal("SIGTERM");
    await Promise.race([this.done(), sleep(10_000)]);
    if (!this.ended) signal("SIGKILL");
  }
}

/** `npm start -- --port <port> <args>`, and whether its /v1/health answered 200 within two minutes. */
export async function startServer(port: number, args: string[]): Promise<{ server: Running; healthy: boolean }> {
  const server = new Running("npm", ["start", "--", "--port", String(port), ...args]);
  let healthy = false;
  for (const deadline = Date.now() + 120_000; !healthy && !server.ended && Date.now() < deadline; ) {
    const health = await fetch(`http://127.0.0.1:${port}/v1/health`).catch(() => undefined);
    healthy = health?.status === 200;
    if (!healthy) await sleep(500);
  }
  return { server, healthy };
}

/** One check: `ok - what`, or a failure that ends the run, with `detail` to see why. */
export function check(ok: boolean, what: string, detail = ""): void {
  if (!ok) throw new Error(`${what}${detail ? `\n${detail}` : ""}`);
  console.log(`ok - ${what}`);
}

/**
 * Runs `checks` (which push what they start to `started`), then stops all of it and removes `database`
 * and the server's build folder (dist/dev-<port>); prints "<name> passed" or "failed" and exits so.
 */
export async function runChecks(
  name: string,
  checks: () => Promise<void>,
  cleanup: { started: Running[]; database: string; port: number },
): Promise<never> {
  let failed = false;
  try {
    await checks();
  } catch (error) {
    failed = true;
    console.log(`not ok - ${(error as Error).message}`);
  } finally {
    await Promise.all(cleanup.started.map((command) => command.stop()));
    rmSync(cleanup.database, { recursive: true, force: true });
    rmSync(path.join(root, `dist/dev-${cleanup.port}`), { recursive: true, force: true });
  }
  console.log(`${name} ${failed ? "failed" : "passed"}`);
  process.exit(failed ? 1 : 0);
}
