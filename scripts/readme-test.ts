/**
 * `npm run test:readme` (run by .ci/run): the README's quick start, run as it is written, so that an
 * edit that breaks a newcomer's path fails CI.
 *
 * It takes the README's blocks marked `<!-- readme-test: NAME -->`: `addresses` (the exports, with the
 * test's own ports put in place of 8787 and 4000), `receiver`, `first-call`, `client`, and the outputs
 * the README shows (`first-call output`, `receiver output`), where `…` stands for anything. Then twice,
 * each time on a fresh `npm start -- --port P --persist-to D` (free ports; one throwaway database kept
 * for both runs, so that the second run meets what the first created, as a newcomer's second try does):
 * the receiver block, then the first-call block in `bash -euo pipefail`, which must succeed and print
 * lines of the shown shape; the receiver must print both shown notifications of the application
 * created, verified; the start must log at most one build. After the second run, the client block
 * against the same server. `npm install` is not run (CI has just installed). It prints one line per
 * check, exits non-zero on the first failure, and always stops what it started.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./lib";
import { check, Running, runChecks, startServer as serve, sleep } from "./local-server";

const root = path.join(import.meta.dirname, "..");
const README = readFileSync(path.join(root, "README.md"), "utf8");

/** The fenced block right after `<!-- readme-test: name -->`. */
function block(name: string): string {
  const marker = `<!-- readme-test: ${name} -->`;
  const at = README.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no block marked "${marker}"`);
  const fenced = /```[a-z]*\n([\s\S]*?)\n```/.exec(README.slice(at + marker.length));
  if (!fenced?.[1]) throw new Error(`README.md: no fenced block after "${marker}"`);
  return fenced[1];
}

/** A line the README shows, as a pattern: `…` is anything, the rest is literal. */
function shape(line: string): RegExp {
  const literal = line.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${literal.join(".+?")}$`);
}

/** A README block in bash, after the addresses block: strict, as a careful reader's terminal. */
const inBash = (addresses: string, script: string) =>
  new Running("bash", ["-e", "-u", "-o", "pipefail", "-c", `${addresses}\n${script}`]);

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(250)) if (condition()) return true;
  return condition();
}

const [apiPort, receiverPort] = [await freePort(), await freePort()];
const database = mkdtempSync(path.join(tmpdir(), "readme-test-"));
const addressesAsWritten = block("addresses");
check(
  addressesAsWritten.includes("8787") && addressesAsWritten.includes("4000"),
  "the addresses block names npm start's port 8787 and the receiver's 4000",
);
const addresses = addressesAsWritten.replaceAll("8787", String(apiPort)).replaceAll("4000", String(receiverPort));
const firstCallShape = block("first-call output").split("\n").map(shape);
const receiverShape = block("receiver output").split("\n").map(shape);
const started: Running[] = [];

async function startServer(): Promise<Running> {
  const { server, healthy } = await serve(apiPort, ["--persist-to", database]);
  started.push(server);
  check(healthy, `npm start serves on port ${apiPort}`, server.output.slice(-3000));
  // What wrangler printed while it started is in npm start's log; the screen shows one banner when ready.
  const startLog = readFileSync(`dist/dev-${apiPort}.log`, "utf8");
  const builds = startLog.match(/: built in \d+ ms/g)?.length ?? 0;
  check(builds <= 1, `npm start logged ${builds} build${builds === 1 ? "" : "s"}, at most one`, startLog);
  check(
    await until(() => server.output.includes(`Ready on http://127.0.0.1:${apiPort}`), 10_000),
    "npm start ends its start with one banner, once it answers",
    server.output,
  );
  check(
    server.output.split("\n").length < 30,
    `npm start printed ${server.output.split("\n").length} lines before it was ready`,
    server.output,
  );
  return server;
}

async function quickStart(run: number): Promise<void> {
  console.log(`# run ${run}`);
  const server = await startServer();
  const receiver = inBash(addresses, block("receiver"));
  started.push(receiver);
  check(
    await until(() => receiver.output.includes("Receiving notifications on"), 60_000),
    `the receiver listens on port ${receiverPort}`,
    receiver.output,
  );

  const firstCall = inBash(addresses, block("first-call"));
  const code = await firstCall.done();
  check(code === 0, "the first-call block succeeds", firstCall.output);
  const lines = firstCall.output.trim().split("\n");
  check(
    lines.length === firstCallShape.length && lines.every((line, i) => firstCallShape[i]!.test(line)),
    "the first-call block prints what the README shows",
    firstCall.output,
  );
  const application = /created application (\S+)/.exec(firstCall.output)?.[1] ?? "";

  // Delivery is at least once and two events may arrive in either order: each shown line must come.
  const received = () => receiver.output.split("\n").filter((line) => line.includes(`application ${application} `));
  const both = () => receiverShape.every((pattern) => received().some((line) => pattern.test(line)));
  check(
    await until(both, 60_000),
    `the receiver verified both notifications of application ${application}`,
    receiver.output,
  );

  if (run === 2) {
    const client = inBash(addresses, block("client"));
    const clientCode = await client.done();
    check(clientCode === 0 && /"applicationId": "\w+"/.test(client.output), "npm run example:client", client.output);
  }
  await receiver.stop();
  await server.stop();
}

await runChecks(
  "README test",
  async () => {
    await quickStart(1);
    await quickStart(2);
  },
  { started, database, port: apiPort },
);
