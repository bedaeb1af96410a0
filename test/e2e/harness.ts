/**
 * What the browser tests share: a throwaway database (its own --persist-to directory, never the
 * developer's .wrangler state) with the migrations and the partners a test names, a local HTTP server
 * playing the shop (its approved/rejected pages and its notification endpoint), `wrangler dev` on a free
 * port, and Debian's Chromium through playwright-core. `runScenarios` starts them, runs each scenario,
 * prints one line per scenario and finally `N passed, M failed`, and always stops everything it started.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import {
  applyMigrations,
  type Credentials,
  freePort,
  LOCAL_DEV_VARS,
  partnerStatements,
  shardBindings,
  wrangler,
} from "../../scripts/lib";
import { newId } from "../../src/ids";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const STARTUP_TIMEOUT_MS = 90_000;
export const NOTIFICATION_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------------
// The shop: serves the pages the customer is sent back to and records the notifications it receives.

export interface Received {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export class Shop {
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

export class Service {
  private output = "";
  private constructor(
    private readonly child: ChildProcess,
    readonly origin: string,
  ) {
    child.stdout?.on("data", (chunk: Buffer) => this.record(chunk));
    child.stderr?.on("data", (chunk: Buffer) => this.record(chunk));
  }

  static async start(persistTo: string, pepper: string): Promise<Service> {
    // E2E_PORT: a port of one's own (and the next one for the inspector), beside other servers; else free ones.
    const fixed = Number(process.env.E2E_PORT) || undefined;
    const [port, inspectorPort] = fixed ? [fixed, fixed + 1] : [await freePort(), await freePort()];
    const child = spawn(
      "npx",
      [
        "wrangler",
        "dev",
        ...["--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort)],
        ...["--persist-to", persistTo],
        ...["--var", "REQUIRE_HTTPS:false", "--var", `AUTH_PEPPER:${pepper}`, ...LOCAL_DEV_VARS],
        // The sandbox on, as under `npm start`: the console's payouts are closed by its POST …/payouts/close.
        ...["--var", "SANDBOX:true"],
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

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

/**
 * An application as a shop creates it: a keyboard and its delivery, CZK 1,001.00, the shop's pages and
 * notification endpoint. By default the customer has to agree to the terms on the gateway's page.
 */
export function applicationBody(
  shop: Shop,
  type: string,
  orderNumber: string,
  options: { fullName?: string; agreed?: boolean; variableSymbols?: string[] } = {},
) {
  const czk = (amount: number) => ({ amount, currency: "CZK" });
  return {
    type,
    agreementTermsAndConditions: options.agreed ?? false,
    customer: {
      fullName: options.fullName ?? "Jana Nováková",
      email: "jana.novakova@example.com",
      phone: "+420777123456",
    },
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
      variableSymbols: options.variableSymbols ?? [],
    },
    merchantUrls: {
      approvedRedirect: `${shop.origin}/approved?order=${orderNumber}`,
      rejectedRedirect: `${shop.origin}/rejected?order=${orderNumber}`,
      notificationEndpoint: `${shop.origin}/notifications`,
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Running scenarios.

/** What every scenario gets: the running service, the shop, the browser. */
export interface Stack {
  service: Service;
  shop: Shop;
  browser: Browser;
}

/** A partner with new random credentials (the user name as given). */
export function newCredentials(username: string): Credentials {
  return {
    username,
    password: randomBytes(18).toString("base64url"),
    apiKey: randomBytes(32).toString("base64url"),
    signingSecret: `whsec_${randomBytes(32).toString("base64")}`,
  };
}

/**
 * Starts the stack with `partners` in its database, lets `prepare` make the scenarios' world from it,
 * runs each scenario in order, and answers the exit code: 0 when every one passed.
 */
export async function runScenarios<World>(
  partners: readonly Credentials[],
  prepare: (stack: Stack) => Promise<World>,
  scenarios: readonly (readonly [string, (world: World) => Promise<void>])[],
): Promise<number> {
  const persistTo = mkdtempSync(path.join(tmpdir(), "financing-e2e-"));
  const pepper = randomBytes(32).toString("hex");
  let service: Service | undefined;
  let shop: Shop | undefined;
  let browser: Browser | undefined;
  let passed = 0;
  let failed = 0;
  try {
    applyMigrations({ persistTo, quiet: true });
    // The partners take the shards in turn (src/db/shards.ts), as in the other tests.
    for (const [i, credentials] of partners.entries()) {
      const shard = i % shardBindings().length;
      for (const { binding, sql } of await partnerStatements(credentials, pepper, false, newId(), shard)) {
        wrangler(["d1", "execute", binding, "--local", "--persist-to", persistTo, "--command", sql], { quiet: true });
      }
    }
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
    const world = await prepare({ service, shop, browser });
    for (const [name, scenario] of scenarios) {
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
    failed = scenarios.length - passed;
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
