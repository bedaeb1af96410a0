/**
 * `npm run test:e2e`: the customer's path through a real browser against `wrangler dev`.
 *
 * The stack of test/e2e/harness.ts with one partner: a throwaway database, a local HTTP receiver
 * playing the shop (its approved/rejected pages and its notification endpoint). Each scenario creates
 * an application through the API, opens the gateway in Chromium, clicks through it, and checks where
 * the customer lands and what the shop is told.
 *
 * Three more scenarios cover what only a real service shows: the typed client of examples/ runs its
 * whole flow against it, the reference page at /docs renders every operation with all requests
 * to anything but the service refused (its assets are the Worker's own, never a CDN's), and a body
 * over 10 MB gets its 413 through wrangler's dev proxy every time.
 *
 * A plain Node script (node:assert, no test runner): it prints one line per scenario and finally
 * `N passed, M failed`, exits non-zero on any failure, and always stops wrangler and the browser.
 */
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { partnerFlow } from "../../examples/client-flow";
import type { Credentials } from "../../scripts/lib";
import {
  applicationBody,
  eventually,
  NOTIFICATION_TIMEOUT_MS,
  newCredentials,
  type Received,
  runScenarios,
  type Stack,
} from "./harness";

// ---------------------------------------------------------------------------------------------------
// The scenarios.

interface World extends Stack {
  token: string;
  credentials: Credentials;
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

/**
 * The Worker answers 413 before reading such a body; wrangler dev's proxy lost that answer now and then
 * (an empty body, a 503 "Your worker restarted mid-request", a reset) until the local Worker was told
 * to read what it refuses (LOCAL_DEV_VARS in scripts/lib.ts, given by test/e2e/harness.ts). Ten tries, each answer recorded.
 */
async function refusesOversizedBody(world: World): Promise<void> {
  const oneByteOver10MiB = "x".repeat(10 * 1024 * 1024 + 1);
  const answers: string[] = [];
  for (let i = 0; i < 10; i++) {
    try {
      const res = await fetch(`${world.service.origin}/financing/v1/applications`, {
        method: "POST",
        headers: { Authorization: `Bearer ${world.token}`, "Content-Type": "application/json" },
        body: oneByteOver10MiB,
      });
      const text = await res.text();
      answers.push(`${res.status} ${text.startsWith("{") ? (JSON.parse(text) as { error?: string }).error : text}`);
    } catch (error) {
      answers.push(
        `failed: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : error}`,
      );
    }
  }
  assert.deepEqual(answers, Array(10).fill("413 request_too_large"));
}

const SCENARIOS: [string, (world: World) => Promise<void>][] = [
  [
    "a customer confirms PAY_IN_THREE: approved page, READY notification verified by standardwebhooks",
    confirmsPayInThree,
  ],
  ["a customer cancels DEFERRED_PAYMENT: rejected page, outcome shown on reopening", cancelsDeferredPayment],
  ["the typed client (openapi-fetch) runs a partner's whole flow; its notifications verify", typedClientFlow],
  ["/docs renders every operation from the Worker's own assets, nothing fetched elsewhere", referencePage],
  ["a create body of 10 MiB + 1 byte answers 413 request_too_large, ten times out of ten", refusesOversizedBody],
];

const credentials = newCredentials("e2e-shop");

process.exit(
  await runScenarios(
    [credentials],
    async (stack) => {
      const login = await stack.service.call("POST", "/authentication/v1/partner", {
        username: credentials.username,
        password: credentials.password,
      });
      return { ...stack, token: login.accessToken as string, credentials };
    },
    SCENARIOS,
  ),
);
