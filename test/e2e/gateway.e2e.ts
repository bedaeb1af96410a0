/**
 * `npm run test:e2e`: the customer's path through a real browser against `wrangler dev`.
 *
 * A throwaway database (its own --persist-to directory, never the developer's .wrangler state) gets
 * the migrations and one partner; a local HTTP receiver plays the shop (its approved/rejected pages and
 * its notification endpoint). Each scenario creates an application through the API, opens the gateway
 * in Chromium, clicks through it, and checks where the customer lands and what the shop is told.
 *
 * Two more scenarios cover what only a real service shows: the typed client of examples/ runs its
 * whole flow against it, and the reference page at /docs renders every operation with all requests
 * to anything but the service refused (its assets are the Worker's own, never a CDN's).
 *
 * A plain Node script (node:assert, no test runner): it prints one line per scenario and finally
 * `N passed, M failed`, exits non-zero on any failure, and always stops wrangler and the browser.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { partnerFlow } from "../../examples/client-flow";
import { type Credentials, partnerSql, wrangler } from "../../scripts/lib";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const STARTUP_TIMEOUT_MS = 90_000;
const NOTIFICATION_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------------
// The shop: serves the pages the customer is sent back to and records the notifications it receives.

interface Received {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

class Shop {
  private constructor(
    private readonly server: Server,
    readonly origin: string,
    readonly requests: Received[],
  ) {}

  static async start(): Promise<Shop> {
    const requests: Received[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://127.0.0.1");
        requests.push({ method: req.method ?? "", url, headers: req.headers, body: Buffer.concat(chunks).toString() });
        if (req.method === "POST" && url.pathname === "/notifications") {
          res.writeHead(204).end();
        } else if (req.method === "GET" && (url.pathname === "/approved" || url.pathname === "/rejected")) {
          res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
          res.end(`<!doctype html><title>Shop</title><h1 id="shop">${url.pathname.slice(1)}</h1>`);
        } else {
          res.writeHead(404).end();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return new Shop(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests);
  }

  notifications(applicationId: string): Received[] {
    return this.requests.filter((r) => r.method === "POST" && JSON.parse(r.body || "{}").id === applicationId);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

// ---------------------------------------------------------------------------------------------------
// The service: wrangler dev on a free port with a throwaway database.

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

class Service {
  private output = "";
  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => this.record(chunk));
    child.stderr?.on("data", (chunk: Buffer) => this.record(chunk));
  }

  static async start(persistTo: string, pepper: string): Promise<Service> {
    const [port, inspectorPort] = [await freePort(), await freePort()];
    const child = spawn(
      "npx",
      [
        "wrangler",
        "dev",
        ...["--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort)],
        ...["--persist-to", persistTo],
        ...["--var", "REQUIRE_HTTPS:false", "--var", `AUTH_PEPPER:${pepper}`],
        "--show-interactive-dev-session=false",
      ],
      {
        // Its own process group, so that stopping it also stops workerd and the bundler it started.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false" },
      },
    );
    const service = new Service(child, `http://127.0.0.1:${port}`);
    await service.waitUntilHealthy();
    return service;
  }

  private record(chunk: Buffer) {
    // Keep the tail only: it is printed when something fails.
    this.output = (this.output + chunk.toString()).slice(-20_000);
  }

  get log(): string {
    return this.output;
  }

  private async waitUntilHealthy() {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`wrangler dev exited with ${this.child.exitCode}`);
      try {
        if ((await fetch(`${this.origin}/v1/health`)).status === 200) return;
      } catch {
        // Not listening yet.
      }
      await sleep(500);
    }
    throw new Error(`wrangler dev did not become healthy within ${STARTUP_TIMEOUT_MS / 1000} s`);
  }

  async stop(): Promise<void> {
    const { child } = this;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
    };
    signalGroup("SIGTERM");
    const timer = setTimeout(() => signalGroup("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async call(method: string, route: string, body?: unknown, token?: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.origin}${route}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${route} answered ${res.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

// ---------------------------------------------------------------------------------------------------
// The scenarios.

interface World {
  service: Service;
  shop: Shop;
  browser: Browser;
  token: string;
  credentials: Credentials;
}

function applicationBody(shop: Shop, type: string, orderNumber: string) {
  const czk = (amount: number) => ({ amount, currency: "CZK" });
  return {
    type,
    // The customer has to agree on the page.
    agreementTermsAndConditions: false,
    customer: { fullName: "Jana Nováková", email: "jana.novakova@example.com", phone: "+420777123456" },
    order: {
      number: orderNumber,
      totalPrice: czk(100100),
      totalVat: [{ vatRate: 21, amount: 17373, currency: "CZK" }],
      items: [
        {
          code: "KB-01",
          name: "Mechanical keyboard",
          type: "PHYSICAL",
          quantity: 1,
          totalPrice: czk(90100),
          totalVat: { vatRate: 21, amount: 15637, currency: "CZK" },
        },
        {
          code: "SHIP",
          name: "Delivery",
          type: "SHIPPING_FEE",
          quantity: 1,
          totalPrice: czk(10000),
          totalVat: { vatRate: 21, amount: 1736, currency: "CZK" },
        },
      ],
      variableSymbols: [],
    },
    merchantUrls: {
      approvedRedirect: `${shop.origin}/approved?order=${orderNumber}`,
      rejectedRedirect: `${shop.origin}/rejected?order=${orderNumber}`,
      notificationEndpoint: `${shop.origin}/notifications`,
    },
  };
}

/** Standard Webhooks, as a partner verifies it: with the reference library and the signing secret. */
function verifyStandardWebhook(signingSecret: string, notification: Received): void {
  const headers = Object.fromEntries(
    ["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(notification.headers[name])]),
  );
  const verified = new Webhook(signingSecret).verify(notification.body, headers);
  assert.deepEqual(verified, JSON.parse(notification.body));
  assert.equal(headers["webhook-id"], JSON.parse(notification.body).eventId);
}

/** The legacy signature check, as partners who integrated before Standard Webhooks implement it. */
function verifyLegacySignature(apiKey: string, notification: Received): void {
  const timestamp = notification.headers["x-notification-timestamp"];
  const signature = notification.headers["x-notification-signature"];
  assert.equal(typeof timestamp, "string", "X-Notification-Timestamp is present");
  assert.equal(typeof signature, "string", "X-Notification-Signature is present");
  assert.match(timestamp as string, /^\d+$/);
  assert.ok(Math.abs(Date.now() / 1000 - Number(timestamp)) < 300, "timestamp is current");
  const expected = `v1=${createHmac("sha256", apiKey).update(`${timestamp}.${notification.body}`).digest("hex")}`;
  const [a, b] = [Buffer.from(signature as string), Buffer.from(expected)];
  assert.ok(a.length === b.length && timingSafeEqual(a, b), `signature ${signature} verifies`);
}

async function confirmsPayInThree(world: World): Promise<void> {
  const { service, shop, browser, token, credentials } = world;
  const orderNumber = `E2E-${Date.now()}`;
  const app = await service.call(
    "POST",
    "/financing/v1/applications",
    applicationBody(shop, "PAY_IN_THREE", orderNumber),
    token,
  );
  const id = app.id as string;
  assert.equal(app.state, "PROCESSING");

  const page = await browser.newPage();
  try {
    await page.goto(app.gatewayRedirectUrl as string);
    const text = (await page.locator("main").innerText()).replace(/[\u00a0\u202f]/g, " ");
    // 1,001.00 CZK in three: 333.67 + 333.67 + 333.66.
    assert.match(text, /Pay in three instalments/);
    assert.match(text, /Order total\s+CZK 1,001\.00/);
    for (const [n, amount] of [
      [1, "CZK 333.67"],
      [2, "CZK 333.67"],
      [3, "CZK 333.66"],
    ] as const) {
      assert.match(text, new RegExp(`Instalment ${n} of 3, due \\d{4}-\\d{2}-\\d{2}\\s+${amount.replace(".", "\\.")}`));
    }
    const agreement = page.locator('input[name="agreement"]');
    if ((await agreement.count()) > 0) await agreement.check();
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/approved" && url.searchParams.get("applicationId") === id),
      page.locator('button[name="action"][value="confirm"]').click(),
    ]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get("order"), orderNumber, "the shop's own query is kept");
    assert.equal(await page.locator("#shop").innerText(), "approved");
  } finally {
    await page.close();
  }

  const read = await service.call("GET", `/financing/v1/applications/${id}`, undefined, token);
  assert.equal(read.state, "READY");
  assert.equal(read.stateReason, "READY_TO_SHIP");
  assert.equal(read.agreementTermsAndConditions, true);

  const ready = await eventually("a READY notification at the shop", NOTIFICATION_TIMEOUT_MS, () =>
    shop.notifications(id).find((n) => JSON.parse(n.body).state === "READY"),
  );
  verifyStandardWebhook(credentials.signingSecret, ready);
  verifyLegacySignature(credentials.apiKey, ready);
  const body = JSON.parse(ready.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), [
    "eventId",
    "eventType",
    // The approved goods' authorization runs until then (28 days).
    "expiresAt",
    "id",
    "occurredAt",
    "sequence",
    "state",
    "stateReason",
  ]);
  assert.equal(body.stateReason, "READY_TO_SHIP");
  assert.equal(body.eventType, "APPLICATION_STATE_CHANGED");
  assert.equal(ready.headers["x-notification-id"], body.eventId);
  assert.equal(typeof body.sequence, "number");
}

async function cancelsDeferredPayment(world: World): Promise<void> {
  const { service, shop, browser, token } = world;
  const orderNumber = `E2E-${Date.now()}-C`;
  const app = await service.call(
    "POST",
    "/financing/v1/applications",
    applicationBody(shop, "DEFERRED_PAYMENT", orderNumber),
    token,
  );
  const id = app.id as string;

  const page = await browser.newPage();
  try {
    await page.goto(app.gatewayRedirectUrl as string);
    const text = (await page.locator("main").innerText()).replace(/[\u00a0\u202f]/g, " ");
    assert.match(text, /One payment of CZK 1,001\.00, due \d{4}-\d{2}-\d{2}\./);
    // Cancelling needs no agreement: the required checkbox must not block it.
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/rejected" && url.searchParams.get("applicationId") === id),
      page.locator('button[name="action"][value="cancel"]').click(),
    ]);
    // Opening the link again shows the outcome, not the form.
    await page.goto(app.gatewayRedirectUrl as string);
    assert.match(await page.locator("h1").innerText(), /Application cancelled/);
    assert.equal(await page.locator("form").count(), 0);
  } finally {
    await page.close();
  }

  const read = await service.call("GET", `/financing/v1/applications/${id}`, undefined, token);
  assert.equal(read.state, "CANCELLED");
  assert.deepEqual(read.cancellation, { reason: "APPLICATION_CANCELLED_BY_CUSTOMER" });
}

async function typedClientFlow(world: World): Promise<void> {
  const { service, shop, credentials } = world;
  const result = await partnerFlow(service.origin, credentials, shop.origin);
  assert.equal(result.stateReason, "READY_SHIPPED");
  assert.equal(result.refundedPrice, 21000, "the returned book (160.00) and the goodwill refund (50.00)");
  assert.equal(result.refundablePrice, 95000);
  assert.equal(result.document, "credit note for BK-7");
  assert.ok(result.listed >= 1);
  const notified = await eventually("the typed flow's notifications at the shop", NOTIFICATION_TIMEOUT_MS, () => {
    const received = shop.notifications(result.applicationId);
    return received.some((n) => JSON.parse(n.body).stateReason === "READY_SHIPPED") ? received : undefined;
  });
  for (const notification of notified) verifyStandardWebhook(credentials.signingSecret, notification);
}

async function referencePage(world: World): Promise<void> {
  const { service, browser } = world;
  const document = (await (await fetch(`${service.origin}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary?: string }>>;
  };
  const summaries = Object.values(document.paths).flatMap((operations) =>
    Object.values(operations).flatMap((operation) => (operation.summary ? [operation.summary] : [])),
  );
  assert.ok(summaries.length >= 20, `the document has ${summaries.length} summarised operations`);

  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const elsewhere: string[] = [];
  // Anything but the service itself (a CDN, fonts, telemetry) is refused and remembered.
  await page.route(
    (url) => url.origin !== service.origin,
    (route) => {
      elsewhere.push(route.request().url());
      return route.abort();
    },
  );
  const failures: string[] = [];
  page.on("pageerror", (error) => failures.push(error.message));
  try {
    await page.goto(`${service.origin}/docs`);
    // Collapsed navigation groups keep their entries in the page, hidden: read the text, not what shows.
    await page.getByText(summaries[0]!, { exact: true }).first().waitFor({ state: "attached", timeout: 30_000 });
    const text = (await page.locator("body").textContent()) ?? "";
    const missing = summaries.filter((summary) => !text.includes(summary));
    assert.deepEqual(missing, [], "every operation's summary is on the page");
    assert.deepEqual(failures, [], "the page runs without errors");
    assert.deepEqual(elsewhere, [], "the page asks nothing of any other origin");
  } finally {
    await page.close();
  }
}

const SCENARIOS: [string, (world: World) => Promise<void>][] = [
  [
    "a customer confirms PAY_IN_THREE: approved page, READY notification verified by standardwebhooks",
    confirmsPayInThree,
  ],
  ["a customer cancels DEFERRED_PAYMENT: rejected page, outcome shown on reopening", cancelsDeferredPayment],
  ["the typed client (openapi-fetch) runs a partner's whole flow; its notifications verify", typedClientFlow],
  ["/docs renders every operation from the Worker's own assets, nothing fetched elsewhere", referencePage],
];

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const persistTo = mkdtempSync(path.join(tmpdir(), "financing-e2e-"));
  const pepper = randomBytes(32).toString("hex");
  const credentials: Credentials = {
    username: "e2e-shop",
    password: randomBytes(18).toString("base64url"),
    apiKey: randomBytes(32).toString("base64url"),
    signingSecret: `whsec_${randomBytes(32).toString("base64")}`,
  };
  let service: Service | undefined;
  let shop: Shop | undefined;
  let browser: Browser | undefined;
  let passed = 0;
  let failed = 0;
  try {
    wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], { quiet: true });
    const sql = await partnerSql(credentials, pepper, false);
    wrangler(["d1", "execute", "DB", "--local", "--persist-to", persistTo, "--command", sql], { quiet: true });
    shop = await Shop.start();
    service = await Service.start(persistTo, pepper);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const login = await service.call("POST", "/authentication/v1/partner", {
      username: credentials.username,
      password: credentials.password,
    });
    const world: World = { service, shop, browser, token: login.accessToken as string, credentials };

    for (const [name, scenario] of SCENARIOS) {
      try {
        await scenario(world);
        passed++;
        console.log(`✓ ${name}`);
      } catch (error) {
        failed++;
        console.log(`✗ ${name}\n  ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  } catch (error) {
    failed = SCENARIOS.length - passed;
    console.log(`✗ set-up failed\n  ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    if (failed > 0 && service) console.log(`--- wrangler dev output (tail) ---\n${service.log.slice(-6000)}`);
    await browser?.close().catch(() => undefined);
    await service?.stop();
    await shop?.close();
    rmSync(persistTo, { recursive: true, force: true });
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

process.exit(await main());
