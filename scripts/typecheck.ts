/**
 * `npm run typecheck`: every TypeScript project of the repository checked, two at a time (each `tsc` is
 * one thread; the machines have two cores). A failed project's errors are printed whole once it ends;
 * any failure fails the command.
 */
import { spawn } from "node:child_process";

const PROJECTS = [".", "scripts", "test/e2e", "bench", "examples"];
const AT_ONCE = 2;

function check(project: string): Promise<{ project: string; ok: boolean; output: string }> {
  return new Promise((resolve) => {
    const tsc = spawn("npx", ["tsc", "-p", project], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    tsc.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    tsc.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    tsc.on("close", (code) => resolve({ project, ok: code === 0, output }));
  });
}

const waiting = [...PROJECTS];
const checked = await Promise.all(
  Array.from({ length: AT_ONCE }, async () => {
    const done: Awaited<ReturnType<typeof check>>[] = [];
    for (let project = waiting.shift(); project !== undefined; project = waiting.shift())
      done.push(await check(project));
    return done;
  }),
);
const failed = checked.flat().filter((result) => !result.ok);
for (const { project, output } of failed) process.stderr.write(`tsc -p ${project} failed:\n${output}`);
process.exit(failed.length > 0 ? 1 : 0);
