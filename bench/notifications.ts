/**
 * The notification row of `npm run bench` (issue 45): how many notifications one healthy endpoint is
 * sent per second, and how many D1 statements a delivered attempt costs, counted on the binding
 * (bench/notification-count.js wraps the queue consumer's and the mailboxes' D1).
 *
 * In a runtime of its own: the main one has no queue consumer, so that its create runs deliver nothing.
 * This one is the Worker as built with wrangler.toml's bindings (its queue consumer, the mailboxes, an
 * empty D1 with the migrations), beside a receiver on loopback that answers 204 at once. One partner
 * creates `count` applications through the API, all notified to that receiver (a warm-up, which also
 * opens the partner's mailbox). Then, per round, every one of their events is made PENDING and overdue
 * again, the Worker's scheduled handler runs (the sweep wakes them up, a hundred per queue batch), and
 * the round is timed from that run to the last arrival; statements are counted from then until every
 * event is recorded DELIVERED.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { freePort, partnerSql } from "../scripts/lib";
import { applicationRequest } from "../test/support/application-request";
import { DATA, log, ROOT, sleep } from "./config";
import { migrationStatements } from "./seed";

export interface NotificationResult {
  /** Notifications per round. */
  count: number;
  rounds: { perSecond: number; statementsPerDelivery: number; seconds: number }[];
}

const PARTNER = { username: "bench-notified", password: "bench-notified-password", apiKey: "bench-notified-key" };

/** A receiver that answers 204 at once and notes when each POST arrived. */
async function receiver() {
  const port = await freePort();
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrivals.push(performance.now());
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}/notifications`, arrivals, close: () => server.close() };
}

async function until(what: string, condition: () => Promise<boolean> | boolean, ms = 120_000): Promise<void> {
  for (const end = Date.now() + ms; !(await condition()); await sleep(20)) {
    if (Date.now() > end) throw new Error(`notifications: ${what} not within ${ms / 1000} s`);
  }
}

export async function measureNotifications(
  buildDir: string,
  pepper: string,
  count: number,
  rounds: number,
): Promise<NotificationResult> {
  const work = path.join(DATA, "notifications");
  rmSync(work, { recursive: true, force: true });
  const endpoint = await receiver();
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(ROOT, "wrangler.toml"));
  // wrangler.toml's bindings, queue consumers and objects; no assets router, the counting wrapper as entry.
  const { assets: _assets, modulesRules: _rules, ...options } = workerOptions;
  const mf = new Miniflare({
    host: "127.0.0.1",
    port: 0,
    d1Persist: path.join(work, "d1"),
    durableObjectsPersist: path.join(work, "do"),
    workers: [
      {
        ...options,
        name: "financing-partner-api",
        modules: true,
        scriptPath: path.join(buildDir, "notification-count.js"),
        modulesRules: [{ type: "ESModule" as const, include: ["**/*.js", "**/*.mjs"] }],
        bindings: {
          ...options.bindings,
          AUTH_PEPPER: pepper,
          REQUIRE_HTTPS: "false",
          RATE_LIMIT_REQUESTS: "100000000",
        },
      },
    ],
  });
  try {
    const base = (await mf.ready).toString().replace(/\/$/, "");
    const db = await mf.getD1Database("DB");
    for (const file of readdirSync(path.join(ROOT, "migrations"))
      .filter((f) => f.endsWith(".sql"))
      .sort()) {
      const sql = readFileSync(path.join(ROOT, "migrations", file), "utf8");
      for (const statement of migrationStatements(sql)) await db.prepare(statement).run();
    }
    await db
      .prepare(
        await partnerSql(
          { ...PARTNER, signingSecret: `whsec_${btoa("bench notified signing secret!")}` },
          pepper,
          false,
        ),
      )
      .run();
    const login = await fetch(`${base}/authentication/v1/partner`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: PARTNER.username, password: PARTNER.password }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };

    log(`  creating ${count} applications notified to one endpoint (the warm-up delivers their notifications)…`);
    let next = 0;
    const creator = async () => {
      while (next++ < count) {
        const body = applicationRequest();
        body.merchantUrls.notificationEndpoint = endpoint.url;
        const res = await fetch(`${base}/financing/v1/applications`, {
          method: "POST",
          headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        if (res.status !== 201) throw new Error(`notifications: create answered ${res.status}: ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 10 }, creator));
    const delivered = async () =>
      (await db.prepare("SELECT COUNT(*) AS n FROM events WHERE status = 'DELIVERED'").first<{ n: number }>())!.n;
    await until("the warm-up's deliveries", async () => (await delivered()) === count);

    const worker = await mf.getWorker("financing-partner-api");
    const counted = async () =>
      ((await (await fetch(`${base}/__bench/d1-statements`)).json()) as { statements: number }).statements;
    const result: NotificationResult = { count, rounds: [] };
    for (let round = 1; round <= rounds; round++) {
      // Every event due again, overdue past the sweep's two minutes, as after an outage.
      await db
        .prepare(
          "UPDATE events SET status = 'PENDING', next_attempt_at = ?, delivered_at = NULL, delivering_until = NULL",
        )
        .bind(Date.now() - 3 * 60_000)
        .run();
      endpoint.arrivals.length = 0;
      const before = await counted();
      const started = performance.now();
      await worker.scheduled({ cron: "*/5 * * * *", scheduledTime: new Date() });
      await until("every notification of the round", () => endpoint.arrivals.length >= count);
      const seconds = (Math.max(...endpoint.arrivals) - started) / 1000;
      await until("every attempt recorded", async () => (await delivered()) === count);
      const statements = (await counted()) - before;
      result.rounds.push({ perSecond: count / seconds, statementsPerDelivery: statements / count, seconds });
      log(
        `  round ${round}: ${count} notifications in ${seconds.toFixed(2)} s = ${(count / seconds).toFixed(0)}/s; ${(statements / count).toFixed(2)} D1 statements per delivered attempt`,
      );
    }
    return result;
  } finally {
    await mf.dispose();
    endpoint.close();
    rmSync(work, { recursive: true, force: true });
  }
}
