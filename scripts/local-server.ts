/**
 * Commands the checks beside a local server run (the README test, the cron test): each in its own
 * process group, so that stopping it stops npm, wrangler and workerd, with its output kept.
 */
import { type ChildProcess, spawn } from "node:child_process";
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
