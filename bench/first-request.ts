/**
 * A cold request's latency from outside: each kind of first request (startup.ts's COLD_REQUESTS) sent to
 * a freshly started `npm start`, then sent again. The server is started anew for every kind, so the
 * first call is the isolate's first to that route group; a health check and the login come before it
 * (the token's object is warm, as the partner's is). Milliseconds from the client, the local proxy
 * included, so it does not depend on how the Worker is split; the median of BENCH_FIRST_REQUEST_STARTS
 * starts (default 3). The send is of an application still awaiting its customer: it is refused (422)
 * after its validation, the same first-request work as a send that succeeds.
 *
 * `npm run bench` runs it after the startup profiles; on its own: `npx tsx bench/first-request.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DEMO, freePort } from "../scripts/lib";
import { startServer } from "../scripts/local-server";
import { log, ROOT } from "./config";
import { createBody } from "./create-body";
import { COLD_REQUESTS } from "./startup";

export interface FirstRequestRow {
  label: string;
  /** ms of the first and the second call, per start, and their medians. */
  first: number[];
  second: number[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

interface Seed {
  applicationId: string;
  gatewayPath: string;
}

/** The two calls of a kind: the request to send (a new order number each time for a create). */
function requestFor(label: string, base: string, token: string, seed: Seed): () => [string, RequestInit] {
  const auth = { Authorization: `Bearer ${token}` };
  const application = `${base}/financing/v1/applications/${seed.applicationId}`;
  const json = { ...auth, "Content-Type": "application/json" };
  const requests: Record<string, () => [string, RequestInit]> = {
    "GET of an application": () => [application, { headers: auth }],
    create: () => [
      `${base}/financing/v1/applications`,
      { method: "POST", headers: json, body: createBody(`FIRST-${crypto.randomUUID()}`) },
    ],
    "an order operation (send)": () => [`${application}/order/send`, { method: "PUT", headers: json, body: "{}" }],
    "the gateway page": () => [`${base}${seed.gatewayPath}`, {}],
    "the notifications log": () => [`${base}/financing/v1/notifications`, { headers: auth }],
    "/openapi.json": () => [`${base}/openapi.json`, {}],
  };
  const request = requests[label];
  if (!request) throw new Error(`no request for the cold row "${label}"`);
  return request;
}

async function timed([url, init]: [string, RequestInit]): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status >= 500) throw new Error(`${init.method ?? "GET"} ${url}: ${res.status}`);
  return ms;
}

async function login(base: string): Promise<string> {
  const res = await fetch(`${base}/authentication/v1/partner`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: DEMO.username, password: DEMO.password }),
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** Runs `work` against a fresh `npm start` on the given database, and always stops it. */
async function withServer<T>(database: string, work: (base: string) => Promise<T>): Promise<T> {
  const port = await freePort();
  const { server, healthy } = await startServer(port, ["--persist-to", database]);
  try {
    if (!healthy) throw new Error(`npm start did not answer on port ${port}:\n${server.output.slice(-2000)}`);
    return await work(`http://127.0.0.1:${port}`);
  } finally {
    await server.stop();
    rmSync(path.join(ROOT, `dist/dev-${port}`), { recursive: true, force: true });
  }
}

export async function measureFirstRequests(
  starts = Number(process.env.BENCH_FIRST_REQUEST_STARTS ?? 3),
): Promise<FirstRequestRow[]> {
  const database = mkdtempSync(path.join(tmpdir(), "bench-first-request-"));
  try {
    log(`First requests from outside (a fresh npm start per kind, ${starts} starts each)…`);
    const seed = await withServer(database, async (base) => {
      const [url, init] = requestFor("create", base, await login(base), { applicationId: "", gatewayPath: "" })();
      const res = await fetch(url, init);
      if (res.status !== 201) throw new Error(`seed create: ${res.status} ${await res.text()}`);
      const created = (await res.json()) as { id: string; gatewayRedirectUrl: string };
      return { applicationId: created.id, gatewayPath: new URL(created.gatewayRedirectUrl).pathname };
    });
    const rows: FirstRequestRow[] = COLD_REQUESTS.map(({ label }) => ({ label, first: [], second: [] }));
    // Kinds interleaved within each round of starts, so that a busy moment of the machine hits all of them.
    for (let start = 0; start < starts; start++) {
      for (const row of rows) {
        await withServer(database, async (base) => {
          const request = requestFor(row.label, base, await login(base), seed);
          row.first.push(await timed(request()));
          row.second.push(await timed(request()));
        });
      }
    }
    for (const row of rows) {
      log(`  ${row.label}: first ${median(row.first).toFixed(0)} ms, second ${median(row.second).toFixed(0)} ms`);
    }
    return rows;
  } finally {
    rmSync(database, { recursive: true, force: true });
  }
}

/** The report's table: medians of the first and second calls, and their ratio. */
export function firstRequestTable(rows: FirstRequestRow[]): string[] {
  return [
    "| Request | First ms | Second ms | First / second | Runs (first) |",
    "|---|---:|---:|---:|---|",
    ...rows.map((row) => {
      const [first, second] = [median(row.first), median(row.second)];
      return `| ${row.label} | ${first.toFixed(0)} | ${second.toFixed(0)} | ${(first / second).toFixed(1)} × | ${row.first.map((v) => v.toFixed(0)).join(", ")} |`;
    }),
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(firstRequestTable(await measureFirstRequests()).join("\n"));
}
