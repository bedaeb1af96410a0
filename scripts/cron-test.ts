/**
 * `npm run test:cron` (run by .ci/run): `npm run cron` beside a running `npm start`, shown to do the
 * Cron Trigger's work on that server's database. On free ports and a throwaway database it starts the
 * server (the quota raised, so that the reads below meet no 429) and the example receiver, then makes
 * four applications whose due step is DUE_IN_MS away, each moved there by the sandbox's advance-time
 * (which applies only what is due at its own moment):
 *
 *   awaiting     the customer's 72 hours end        → CANCELLED / CANCELLED_EXPIRED
 *   review       a `+review` customer's review ends → READY / READY_TO_SHIP
 *   reminded     21 days after approval             → AUTHORIZATION_EXPIRING, 7 days before expiresAt
 *   partly sent  28 days after approval, one sent   → the items not sent CANCELLED, READY stays
 *
 * Once all are due, the API still shows each as it was (nothing triggers the cron locally). Then
 * `npm run cron -- --persist-to <the database>` runs once while three loops read the server: it must
 * report 4 deadlines applied, the API must show each change, its event DELIVERED and verified by the
 * receiver, every read must answer 2xx, and a second run must apply nothing. It prints one line per
 * check, exits non-zero on the first failure, and always stops what it started.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO, freePort } from "./lib";
import { check, Running, runChecks, sleep, startServer } from "./local-server";

const DAY_S = 86_400;
/** How far ahead each application's due step is put: room for the requests that prepare the others. */
const DUE_IN_MS = 10_000;

const [apiPort, receiverPort] = [await freePort(), await freePort()];
const database = mkdtempSync(path.join(tmpdir(), "cron-test-"));
const base = `http://127.0.0.1:${apiPort}`;
const receiverUrl = `http://127.0.0.1:${receiverPort}`;
const started: Running[] = [];
let token = "";

interface Application {
  id: string;
  state: string;
  stateReason: string;
  expiresAt?: string;
  gatewayRedirectUrl: string;
  order: { items: { code: string; state: string }[] };
}
interface Notification {
  eventId: string;
  eventType: string;
  stateReason: string;
  status: string;
}

async function api(method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The answer's body, which must come with a 2xx. */
async function ok<T = Application>(method: string, url: string, body?: unknown): Promise<T> {
  const answer = await api(method, url, body);
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body as T;
}

let orders = 0;
async function create(email = "jana@example.com"): Promise<Application> {
  const item = (code: string, amount: number) => ({
    code,
    name: code,
    totalPrice: { amount, currency: "CZK" },
    totalVat: { vatRate: 21, amount: Math.round((amount * 21) / 121), currency: "CZK" },
  });
  const items = [item("KB-01", 100_000), item("BK-7", 50_000)];
  return ok("POST", "/financing/v1/applications", {
    type: "DEFERRED_PAYMENT",
    agreementTermsAndConditions: true,
    customer: { fullName: "Jana Novakova", email, phone: "+420777123456" },
    order: {
      number: `CRON-${Date.now()}-${++orders}`,
      totalPrice: { amount: 150_000, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: items.reduce((sum, i) => sum + i.totalVat.amount, 0), currency: "CZK" }],
      items,
    },
    merchantUrls: {
      approvedRedirect: "https://shop.example.com/ok",
      rejectedRedirect: "https://shop.example.com/no",
      notificationEndpoint: `${receiverUrl}/notifications`,
    },
  });
}

/** The customer confirms at the gateway, sending back the form's hidden fields as a browser does. */
async function confirm(application: Application): Promise<void> {
  const page = await (await fetch(application.gatewayRedirectUrl)).text();
  const form = new URLSearchParams({ action: "confirm" });
  for (const [input] of page.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
    const name = /name="([^"]*)"/.exec(input)?.[1];
    const value = /value="([^"]*)"/.exec(input)?.[1];
    if (name !== undefined && value !== undefined) form.append(name, value.replaceAll("&amp;", "&"));
  }
  const answer = await fetch(application.gatewayRedirectUrl, { method: "POST", body: form, redirect: "manual" });
  if (answer.status !== 303) throw new Error(`confirming ${application.id}: ${answer.status}`);
}

/** advance-time by `seconds`: the application's answer after it. */
const advance = (id: string, seconds: number) =>
  ok("POST", `/financing/v1/sandbox/applications/${id}/advance-time`, { seconds });

const app = (id: string) => ok("GET", `/financing/v1/applications/${id}`);
const notifications = async (id: string) =>
  (await ok<{ data: Notification[] }>("GET", `/financing/v1/applications/${id}/notifications`)).data;

/** Reads of the server, in three loops, until stopped: the statuses they met. */
function readLoops() {
  const statuses: Record<number, number> = {};
  let running = true;
  const loop = async () => {
    while (running) {
      const { status } = await api("GET", "/financing/v1/applications?limit=1").catch(() => ({ status: 0 }));
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  const loops = [loop(), loop(), loop()];
  return async () => {
    running = false;
    await Promise.all(loops);
    return statuses;
  };
}

async function cron(): Promise<{ code: number | null; output: string; seconds: string }> {
  const begun = Date.now();
  const run = new Running("npm", ["run", "cron", "--", "--persist-to", database]);
  started.push(run);
  const code = await run.done();
  return { code, output: run.output, seconds: ((Date.now() - begun) / 1000).toFixed(1) };
}

async function main(): Promise<void> {
  const { server, healthy } = await startServer(apiPort, [
    "--persist-to",
    database,
    "--var",
    "RATE_LIMIT_REQUESTS:100000000",
  ]);
  started.push(server);
  check(healthy, `npm start serves on port ${apiPort}`, server.output.slice(-3000));
  const receiver = new Running("npm", ["run", "example:receiver"], { RECEIVER: receiverUrl });
  started.push(receiver);

  const login = await fetch(`${base}/authentication/v1/partner`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: DEMO.username, password: DEMO.password }),
  });
  token = ((await login.json()) as { accessToken: string }).accessToken;

  const dueIn = DUE_IN_MS / 1000;
  const awaiting = await create();
  await advance(awaiting.id, 72 * 3600 - dueIn);

  const review = await create("petr+review@example.com");
  await confirm(review);
  await advance(review.id, 600 - dueIn);

  const reminded = await create();
  await confirm(reminded);
  await advance(reminded.id, 21 * DAY_S - dueIn);

  const partly = await create();
  await confirm(partly);
  await ok("PUT", `/financing/v1/applications/${partly.id}/order/send`, { items: [{ code: "KB-01" }] });
  await advance(partly.id, 28 * DAY_S - dueIn);

  const all = [awaiting, review, reminded, partly];
  const before = await Promise.all(all.map((a) => app(a.id)));
  check(
    before.map((a) => a.stateReason).join() ===
      "PROCESSING_REDIRECT_NEEDED,PROCESSING_MANUAL_REVIEW,READY_TO_SHIP,READY_SHIPPED",
    "four applications, each with a step due in 10 s",
    JSON.stringify(before.map((a) => [a.state, a.stateReason])),
  );
  await sleep(DUE_IN_MS + 2000);
  const waiting = await Promise.all(all.map((a) => app(a.id)));
  check(
    waiting.map((a) => a.stateReason).join() === before.map((a) => a.stateReason).join() &&
      !(await notifications(reminded.id)).some((e) => e.eventType === "AUTHORIZATION_EXPIRING"),
    "once due, nothing happens by itself: each application is as it was",
  );

  const stopReads = readLoops();
  const first = await cron();
  const statuses = await stopReads();
  const busy = first.output.match(/local database was busy/g)?.length ?? 0;
  check(
    first.code === 0,
    `npm run cron succeeds in ${first.seconds} s (${busy} statements met a busy database and ran again)`,
    first.output,
  );
  check(/deadlines applied[^:]*: 4\b/.test(first.output), "it reports 4 deadlines applied", first.output);
  const reads = Object.values(statuses).reduce((a, b) => a + b, 0);
  check(
    Object.keys(statuses).every((s) => Number(s) >= 200 && Number(s) < 300),
    `${reads} reads of the server while it ran, every one 2xx`,
    JSON.stringify(statuses),
  );

  const after = await Promise.all(all.map((a) => app(a.id)));
  check(
    after.map((a) => `${a.state}/${a.stateReason}`).join() ===
      "CANCELLED/CANCELLED_EXPIRED,READY/READY_TO_SHIP,READY/READY_TO_SHIP,READY/READY_SHIPPED",
    "the API shows the lapse, the review settled, and the partly sent application still READY",
    JSON.stringify(after.map((a) => [a.state, a.stateReason])),
  );
  const partlyItems = after[3]!.order.items.map((i) => `${i.code}:${i.state}`);
  check(
    partlyItems.join() === "KB-01:SENT,BK-7:CANCELLED" && after[3]!.expiresAt === undefined,
    "the partly sent application's unsent item lapsed, the sent one stays",
    partlyItems.join(),
  );

  // Each application's last event is the run's: delivered, and verified by the receiver.
  const expected = [
    "APPLICATION_STATE_CHANGED CANCELLED_EXPIRED",
    "APPLICATION_STATE_CHANGED READY_TO_SHIP",
    "AUTHORIZATION_EXPIRING READY_TO_SHIP",
    "APPLICATION_STATE_CHANGED READY_SHIPPED",
  ];
  const last = await Promise.all(all.map(async (a) => (await notifications(a.id)).at(-1)!));
  check(
    last.map((e) => `${e.eventType} ${e.stateReason}`).join() === expected.join(),
    "each application's last event is the run's",
    JSON.stringify(last),
  );
  check(
    last.every((e) => e.status === "DELIVERED" && receiver.output.includes(`verified ${e.eventId}:`)),
    "each was delivered and verified by the receiver",
    `${JSON.stringify(last)}\n${receiver.output}`,
  );

  const second = await cron();
  check(
    second.code === 0 && /deadlines applied[^:]*: 0\b/.test(second.output),
    "a second run applies nothing",
    second.output,
  );
}

await runChecks("cron test", main, { started, database, port: apiPort });
