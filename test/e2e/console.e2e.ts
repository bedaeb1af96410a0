/**
 * `npm run test:e2e`: the partner console through a real browser against `wrangler dev` (the stack of
 * test/e2e/harness.ts, with three partners).
 *
 * One scenario walks a whole support case as a merchant's support person would, with the mouse: sign
 * in, find the application by its order number, read its money, mark the order sent and see that
 * notification delivered, refund part of it (with a double-click), resend an event, rotate the signing
 * secret and copy it, sign out, and go back: nothing private shows. Another does the first steps with
 * the keyboard alone. One reaches the pages the case does not: the list filtered, a refusal in words,
 * extend and cancel confirmed, the delivery log filtered, a replay. One follows the money: the payouts page,
 * a payout and its report, and tracking added to a shipment (refused first, in words). The others are refused: a form without its CSRF token, another partner's
 * application, a customer's name that is markup, the sixth wrong password, a session ended on the server.
 *
 * Every page visited is checked as it is shown: axe-core finds no serious or critical violation, it
 * fits a 375 px screen without scrolling sideways, it weighs under 100 KB with all it loads, and it asks
 * nothing of any other origin (such requests are refused and fail the scenario). The walk's screenshots
 * are written to SCREENSHOT_DIR (`npm run screenshots:console` writes docs/console/, which the README
 * shows), else to a temporary folder.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { assertQuiet, inspect, openContext, reports, screenshots, signIn, text } from "./console-pages";
import {
  applicationBody,
  eventually,
  NOTIFICATION_TIMEOUT_MS,
  newCredentials,
  runScenarios,
  type Stack,
} from "./harness";

const main = newCredentials("e2e-console");
const other = newCredentials("e2e-other");
const locked = newCredentials("e2e-locked");

interface World extends Stack {
  token: string;
  /** The support case: an approved application of the main partner, and its order number. */
  applicationId: string;
  orderNumber: string;
  /** An application of the main partner whose customer's name is markup. */
  markupId: string;
}

// ---------------------------------------------------------------------------------------------------
// The scenarios.

async function supportCase(world: World): Promise<void> {
  const { service, shop, applicationId, orderNumber } = world;
  const origin = service.origin;
  const { context, page, watch } = await openContext(world);
  try {
    // Signed out, the console sends the browser to sign in.
    await page.goto(`${origin}/console/applications`);
    assert.equal(new URL(page.url()).pathname, "/console/sign-in");
    await inspect(page, "sign-in", "sign-in");
    await page.getByLabel("User name").fill(main.username);
    await page.getByLabel("Password").fill(main.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/console/applications");

    // Find the application by its order number.
    await page.getByRole("searchbox", { name: /^Search/ }).fill(orderNumber);
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((url) => url.searchParams.get("q") === orderNumber);
    assert.equal(await page.locator("tbody tr").count(), 1, "one application found");
    assert.match(
      await text(page, "tbody tr"),
      /Jana Nováková jana\.novakova@example\.com Pay later CZK 1,001\.00 READY READY_TO_SHIP/,
    );
    await inspect(page, "applications", "applications");

    // Open it and read its money.
    await page.getByRole("link", { name: orderNumber }).click();
    await page.waitForURL((url) => url.pathname === `/console/applications/${applicationId}`);
    const money = async () =>
      Object.fromEntries(
        await Promise.all(
          ["approved", "financed", "refunded", "refundable"].map(async (m) => [m, await text(page, `#money-${m}`)]),
        ),
      );
    // Nothing went out yet, so nothing is refundable (CONTRACT 5: refunds follow what was sent).
    assert.deepEqual(await money(), {
      approved: "CZK 1,001.00",
      financed: "CZK 1,001.00",
      refunded: "CZK 0.00",
      refundable: "CZK 0.00",
    });
    await inspect(page, "application", "application");

    // Mark the whole order sent; its notification is delivered to the shop, and the page shows it.
    await page.getByRole("button", { name: "Mark order sent…" }).click();
    await page.waitForURL((url) => url.pathname.endsWith("/send"));
    assert.match(await text(page), /Mark every item of order .+ not yet sent as sent today/);
    await inspect(page, "confirmation", "confirmation");
    await page.getByRole("button", { name: "Confirm: the order is sent" }).click();
    await page.waitForURL((url) => url.searchParams.get("done") === "send");
    assert.match(await text(page, "#notice"), /The whole order is marked sent\./);
    await eventually("the READY_SHIPPED notification at the shop", NOTIFICATION_TIMEOUT_MS, () =>
      shop.notifications(applicationId).find((n) => JSON.parse(n.body).stateReason === "READY_SHIPPED"),
    );
    await eventually("its delivery on the page", NOTIFICATION_TIMEOUT_MS, async () => {
      await page.reload();
      const shipped = page.locator("li", { hasText: "READY_SHIPPED" });
      return /Delivery: DELIVERED/.test(await shipped.innerText()) && /\b204\b/.test(await shipped.innerText())
        ? true
        : undefined;
    });

    // Refund part of it, confirming with a double-click: one refund, shown with the money.
    await page.getByLabel(/^Amount/).fill("100.10");
    await page.getByLabel("Reason (optional)").fill("scratched case");
    await page.getByRole("button", { name: "Refund…" }).click();
    await page.waitForURL((url) => url.pathname.endsWith("/refund"));
    assert.match(await text(page), /Refund CZK 100\.10 of order/);
    await page.getByRole("button", { name: "Confirm refund" }).dblclick();
    await page.waitForURL((url) => url.searchParams.get("done") === "refund");
    assert.match(await text(page, "#notice"), /The refund was created\./);
    assert.deepEqual(await money(), {
      approved: "CZK 1,001.00",
      financed: "CZK 1,001.00",
      refunded: "CZK 100.10",
      refundable: "CZK 900.90",
    });
    assert.match(await text(page, "section:has(#refunds)"), /CZK 100\.10 REFUND scratched case/);
    const refunds = await service.call(
      "GET",
      `/financing/v1/applications/${applicationId}/refunds`,
      undefined,
      world.token,
    );
    assert.deepEqual(
      (refunds.data as { totalPrice: { amount: number } }[]).map((r) => r.totalPrice.amount),
      [10010],
      "a double-click refunded once",
    );

    // Resend the READY notification: the shop receives it again, and the page shows the new attempt.
    const readyAtShop = () =>
      shop.notifications(applicationId).filter((n) => JSON.parse(n.body).stateReason === "READY_TO_SHIP");
    const before = readyAtShop().length;
    const ready = page.locator("li", { hasText: "READY_TO_SHIP" });
    await ready.getByRole("button", { name: /Resend/ }).click();
    await page.waitForURL((url) => url.searchParams.get("done") === "resend");
    await eventually("the READY notification again at the shop", NOTIFICATION_TIMEOUT_MS, () =>
      readyAtShop().length > before ? true : undefined,
    );
    await eventually("its second attempt on the page", NOTIFICATION_TIMEOUT_MS, async () => {
      await page.reload();
      return (await page.locator("li", { hasText: "READY_TO_SHIP" }).locator("tbody tr").count()) >= 2
        ? true
        : undefined;
    });

    // Rotate the signing secret: shown once, copied with the button, never in the address.
    await page.getByRole("link", { name: "Notifications" }).click();
    await page.waitForURL((url) => url.pathname === "/console/notifications");
    await inspect(page, "notifications", "notifications");
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    await page.waitForURL((url) => url.pathname === "/console/notification-secret/rotate");
    const secret = await page.getByLabel("New signing secret").inputValue();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.ok(!page.url().includes(secret.slice(6, 20)), "the secret is not in the address");
    await page.getByRole("button", { name: "Copy" }).click();
    await eventually("the copy's confirmation", 5_000, async () =>
      (await text(page, "#new-secret-status")) === "Copied." ? true : undefined,
    );
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await inspect(page, "new secret", "new-secret");
    // The next notification verifies with the new secret (the previous one signs beside it for 24 hours).
    await page.goto(`${origin}/console/applications/${applicationId}`);
    const shipped = () =>
      shop.notifications(applicationId).filter((n) => JSON.parse(n.body).stateReason === "READY_SHIPPED");
    const sent = shipped().length;
    await page
      .locator("li", { hasText: "READY_SHIPPED" })
      .getByRole("button", { name: /Resend/ })
      .click();
    const resent = await eventually("READY_SHIPPED sent again", NOTIFICATION_TIMEOUT_MS, () => shipped()[sent]);
    const headers = Object.fromEntries(
      ["webhook-id", "webhook-timestamp", "webhook-signature"].map((h) => [h, String(resent.headers[h])]),
    );
    new Webhook(secret).verify(resent.body, headers);

    // Sign out; going back shows nothing private, only the sign-in.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/console/sign-in");
    await page.goBack();
    await page.waitForLoadState("load");
    const shown = await text(page, "body");
    assert.equal(new URL(page.url()).pathname, "/console/sign-in", "back lands on sign-in");
    assert.ok(!shown.includes(orderNumber) && !shown.includes("Refundable"), "nothing private is shown");
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

/**
 * The pages the support case does not reach, each checked as it is shown: the list filtered, a refusal
 * in words, extend and cancel with their confirmations, the delivery log filtered, a replay.
 */
async function otherActions(world: World): Promise<void> {
  const origin = world.service.origin;
  const orderNumber = `ACT-${Date.now()}`;
  const id = await approvedApplication(world, world.token, orderNumber);
  const path = `/console/applications/${id}`;
  const { context, page, watch } = await openContext(world);
  try {
    await signIn(page, origin, main);
    await page.getByLabel("State").selectOption("READY");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((url) => url.searchParams.get("state") === "READY");
    assert.match(await text(page, "tbody"), new RegExp(orderNumber), "the READY application is listed");
    await inspect(page, "applications filtered");

    // A refund above what is refundable (what went out: another order, sent): refused in words.
    const sent = await approvedApplication(world, world.token, `${orderNumber}-SENT`);
    await world.service.call("PUT", `/financing/v1/applications/${sent}/order/send`, {}, world.token);
    await page.goto(`${origin}/console/applications/${sent}`);
    await page.getByLabel(/^Amount/).fill("99999");
    await page.getByRole("button", { name: "Refund…" }).click();
    await page.waitForURL((url) => url.pathname === `/console/applications/${sent}/refund`);
    assert.match(await text(page), /The amount is more than can still be refunded: at most CZK 1,001\.00\./);
    await inspect(page, "refused in words (422)");

    // Extend, then cancel, each through its confirmation page.
    for (const [ask, confirm, done, action] of [
      ["Extend authorization…", "Confirm extension", "The authorization was extended.", "extend"],
      ["Cancel application…", "Confirm cancellation", "The application was cancelled.", "cancel"],
    ] as const) {
      await page.goto(`${origin}${path}`);
      await page.getByRole("button", { name: ask }).click();
      await page.waitForURL((url) => url.pathname === `${path}/${action}`);
      await inspect(page, `${action} confirmation`);
      await page.getByRole("button", { name: confirm }).click();
      await page.waitForURL((url) => url.searchParams.get("done") === action);
      assert.match(await text(page, "#notice"), new RegExp(done.replace(".", "\\.")));
    }
    assert.match(await text(page, 'section[aria-labelledby="summary"]'), /CANCELLED/);

    // The delivery log filtered to this application, then a replay of failed notifications (none here).
    await page.getByRole("link", { name: "Notifications" }).click();
    await page.waitForURL((url) => url.pathname === "/console/notifications");
    await page.getByLabel("Application id").fill(id);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL((url) => url.searchParams.get("applicationId") === id);
    await inspect(page, "notifications filtered");
    await page.getByLabel(/^Occurred from/).fill("2026-01-01T00:00");
    await page.getByRole("button", { name: "Replay failed notifications" }).click();
    await page.waitForURL((url) => url.pathname === "/console/notifications/replay");
    assert.match(
      await text(page),
      /failed notifications? (was|were) put back in delivery|No failed notification occurred/,
    );
    await inspect(page, "replayed");
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

/** "CZK 1,234.56" or "-CZK 0.53" as minor units. */
const minorUnits = (shown: string) => {
  const match = /^(-?)[A-Z]{3} ([\d,]+)\.(\d\d)$/.exec(shown);
  assert.ok(match, `${shown} is an amount`);
  return (match[1] ? -1 : 1) * Number(`${match[2]!.replaceAll(",", "")}${match[3]}`);
};

/**
 * The money side: an order sent in two parcels, the first paid out at once by the sandbox's close, the
 * second still open. The payouts page (the open balance, the list filtered), the payout (its totals and
 * its report downloaded), then tracking added to the first parcel from the application page: refused
 * in words for an http address, then saved, its link leading to the carrier's page.
 */
async function payoutsAndTracking(world: World): Promise<void> {
  const { service, token } = world;
  const origin = service.origin;
  const orderNumber = `PAY-${Date.now()}`;
  const id = await approvedApplication(world, token, orderNumber);
  const api = `/financing/v1/applications/${id}`;
  await service.call("PUT", `${api}/order/send`, { items: [{ code: "KB-01" }], reference: "FV-E2E-1" }, token);
  const closed = await service.call("POST", "/financing/v1/sandbox/payouts/close", undefined, token);
  const [payout] = closed.data as { id: string; reference: string; entries: number; totals: { net: number } }[];
  assert.ok(payout, "the sandbox closed a payout");
  await service.call("PUT", `${api}/order/send`, {}, token);
  const { context, page, watch } = await openContext(world);
  try {
    await signIn(page, origin, main);
    await page.getByRole("link", { name: "Payouts" }).click();
    await page.waitForURL((url) => url.pathname === "/console/payouts");
    // The delivery line sent after the close: CZK 100.00, its fee (2.5 %) and the fee's VAT (21 %).
    assert.match(
      await text(page, "section:has(#balance) tbody"),
      /^CZK CZK 100\.00 CZK 0\.00 -CZK 2\.50 -CZK 0\.53 CZK 96\.97$/,
    );
    assert.match(await text(page, "section:has(#payouts) tbody"), new RegExp(`${payout.reference} PAID`));
    await inspect(page, "payouts", "payouts");
    await page.getByLabel("Status").selectOption("PENDING");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL((url) => url.searchParams.get("status") === "PENDING");
    assert.match(await text(page, "section:has(#payouts)"), /No payout matches\./);
    await inspect(page, "payouts filtered");

    await page.getByRole("link", { name: "Clear" }).click();
    await page.getByRole("link", { name: payout.reference }).click();
    await page.waitForURL((url) => url.pathname === `/console/payouts/${payout.id}`);
    assert.equal(minorUnits(await text(page, "#total-net")), payout.totals.net);
    assert.equal(await page.locator("section:has(#entries) tbody tr").count(), payout.entries);
    await inspect(page, "payout", "payout");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download the report (CSV)" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), `payout-${payout.reference}.csv`);
    const rows = readFileSync((await download.path())!, "utf8").split("\r\n");
    assert.equal(rows.length, 1 + payout.entries, "a header and a row per entry");
    const amounts = rows.slice(1).map((row) => Number(row.split(",")[4]));
    assert.equal(
      amounts.reduce((sum, amount) => sum + amount, 0),
      payout.totals.net,
      "the rows add up to the payout",
    );

    // From the payout to the order, and its first parcel's tracking.
    await page.getByRole("link", { name: orderNumber }).first().click();
    await page.waitForURL((url) => url.pathname === `/console/applications/${id}`);
    const parcel = () => page.locator("li", { hasText: "FV-E2E-1" });
    const track = async (url: string) => {
      await parcel().getByLabel("Tracking number").fill("PPL-E2E-2");
      await parcel().getByLabel("Carrier (optional)").fill("PPL");
      await parcel()
        .getByLabel(/^Tracking page/)
        .fill(url);
      await parcel().getByRole("button", { name: "Add tracking" }).click();
    };
    await track("http://www.ppl.cz/track?id=PPL-E2E-2");
    await page.waitForURL((url) => url.pathname.endsWith("/tracking"));
    assert.match(await text(page, "#notice"), /Tracking page: must be an https URL \(INVALID_VALUE\)/);
    assert.match(await text(page, "section:has(#shipments)"), /No tracking yet\./, "nothing was added");
    await inspect(page, "tracking refused (400)");
    await track("https://www.ppl.cz/track?id=PPL-E2E-2");
    await page.waitForURL((url) => url.searchParams.get("done") === "tracking");
    assert.match(await text(page, "#notice"), /The tracking was saved/);
    const link = await parcel().getByRole("link", { name: "PPL-E2E-2" }).getAttribute("href");
    // Not followed in the browser (it leaves for the carrier's site): its answer sends the browser there.
    const led = await context.request.get(`${origin}${link}`, { maxRedirects: 0 });
    assert.equal(led.status(), 303);
    assert.equal(led.headers().location, "https://www.ppl.cz/track?id=PPL-E2E-2");
    await inspect(page, "application with shipments", "application-shipments");
    const shipments = await service.call("GET", `${api}/shipments`, undefined, token);
    const [first] = shipments.data as { reference: string; tracking: { number: string; url?: string }[] }[];
    assert.deepEqual(
      first?.tracking.map((t) => [t.number, t.url]),
      [["PPL-E2E-2", "https://www.ppl.cz/track?id=PPL-E2E-2"]],
      "the API reads the tracking added",
    );
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

/** Tabs until the focused element matches, as a keyboard user would (at most 40 presses). */
async function tabTo(page: Page, what: string, focused: () => boolean) {
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate(focused)) return;
  }
  throw new Error(`could not reach ${what} with Tab`);
}

async function keyboardOnly(world: World): Promise<void> {
  const { context, page, watch } = await openContext(world);
  try {
    await page.goto(`${world.service.origin}/console/sign-in`);
    await tabTo(page, "the user name", () => document.activeElement?.id === "username");
    await page.keyboard.type(main.username);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "password");
    await page.keyboard.type(main.password);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === "/console/applications");
    await tabTo(page, "the search box", () => document.activeElement?.id === "q");
    await page.keyboard.type(world.orderNumber);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.searchParams.get("q") === world.orderNumber);
    await tabTo(page, "the order's link", () =>
      (document.activeElement?.getAttribute("href") ?? "").startsWith("/console/applications/"),
    );
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), world.orderNumber);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === `/console/applications/${world.applicationId}`);
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

async function refusesFormWithoutCsrfToken(world: World): Promise<void> {
  const { context, page, watch } = await openContext(world);
  try {
    await signIn(page, world.service.origin, other);
    await page.getByRole("link", { name: "Notifications" }).click();
    assert.match(await text(page, "section:has(#secret)"), /Only the current secret signs now\./);
    await page.evaluate(() => {
      for (const input of Array.from(document.querySelectorAll('input[name="csrf"]'))) input.remove();
    });
    const answer = page.waitForResponse((res) => res.url().endsWith("/console/notification-secret/rotate"));
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    assert.equal((await answer).status(), 403);
    assert.match(await text(page), /This form has expired/);
    await inspect(page, "form expired (403)");
    await page.goto(`${world.service.origin}/console/notifications`);
    assert.match(
      await text(page, "section:has(#secret)"),
      /Only the current secret signs now\./,
      "nothing was rotated",
    );
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

async function refusesAnotherPartnersApplication(world: World): Promise<void> {
  const { context, page, watch } = await openContext(world);
  try {
    await signIn(page, world.service.origin, other);
    const res = await page.goto(`${world.service.origin}/console/applications/${world.applicationId}`);
    assert.equal(res?.status(), 404);
    const shown = await text(page);
    assert.match(shown, /Not found/);
    assert.ok(!shown.includes(world.orderNumber), "nothing of the application is shown");
    await inspect(page, "not found (404)");
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

async function showsMarkupAsText(world: World): Promise<void> {
  const { context, page, watch } = await openContext(world);
  try {
    await signIn(page, world.service.origin, main);
    for (const path of ["/console/applications", `/console/applications/${world.markupId}`]) {
      await page.goto(`${world.service.origin}${path}`);
      assert.ok((await text(page)).includes("<img src=x onerror=alert(1)>"), `${path}: the name shows as text`);
      assert.equal(await page.locator("main img").count(), 0, `${path}: no image element`);
    }
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

async function refusesSixthWrongPassword(world: World): Promise<void> {
  const { context, page, watch } = await openContext(world);
  try {
    const attempt = async (password: string) => {
      await page.goto(`${world.service.origin}/console/sign-in`);
      await page.getByLabel("User name").fill(locked.username);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForLoadState("load");
      return text(page);
    };
    for (let i = 1; i <= 5; i++) assert.match(await attempt(`wrong-${i}`), /The user name or password is wrong\./);
    assert.match(
      await attempt(locked.password),
      /Too many failed sign-ins/,
      "the sixth is refused, the right password too",
    );
    await inspect(page, "sign-in refused (429)");
    assert.ok(!(await context.cookies()).some((c) => c.name.includes("console-session")), "no session");
    assertQuiet(watch);
  } finally {
    await context.close();
  }
}

async function refusesEndedSession(world: World): Promise<void> {
  const first = await openContext(world);
  const second = await openContext(world);
  try {
    await signIn(first.page, world.service.origin, main);
    const session = (await first.context.cookies()).find((c) => c.name === "console-session");
    assert.ok(session, "a session cookie");
    await first.page.getByRole("button", { name: "Sign out" }).click();
    await first.page.waitForURL((url) => url.pathname === "/console/sign-in");
    // The cookie kept and sent again (a copy, another tab): the session ended on the server.
    await second.context.addCookies([session]);
    await second.page.goto(`${world.service.origin}/console/applications`);
    assert.equal(new URL(second.page.url()).pathname, "/console/sign-in");
    assertQuiet(first.watch);
    assertQuiet(second.watch);
  } finally {
    await first.context.close();
    await second.context.close();
  }
}

async function everyPageChecked(): Promise<void> {
  const names = reports.map((r) => r.name);
  for (const name of [
    "sign-in",
    "applications",
    "application",
    "confirmation",
    "notifications",
    "new secret",
    "payouts",
    "payout",
    "application with shipments",
  ]) {
    assert.ok(names.includes(name), `${name} was checked`);
  }
  console.log("  page                      bytes  axe violations (impact)  width at 375 px");
  for (const r of reports) {
    const found =
      Object.entries(r.violations)
        .map(([impact, n]) => `${n} ${impact}`)
        .join(", ") || "none";
    console.log(`  ${r.name.padEnd(24)} ${String(r.bytes).padStart(6)}  ${found.padEnd(23)}  ${r.narrowWidth} px`);
  }
  for (const file of [
    "sign-in",
    "applications",
    "application",
    "application-375",
    "confirmation",
    "notifications",
    "new-secret",
    "payouts",
    "payout",
    "application-shipments",
  ]) {
    assert.ok(statSync(path.join(screenshots, `${file}.png`)).size > 0, `${file}.png was written`);
  }
  console.log(`  screenshots: ${screenshots}`);
}

const SCENARIOS = [
  [
    "a support case: sign in, find by order number, read the money, mark sent (its notification delivered), refund part (double-click, once), resend, rotate and copy the secret, sign out, back shows nothing",
    supportCase,
  ],
  ["keyboard only: sign in, search, open the application", keyboardOnly],
  ["refused: a form posted without its CSRF token (403, nothing rotated)", refusesFormWithoutCsrfToken],
  ["refused: another partner's application (a 404 page)", refusesAnotherPartnersApplication],
  ["refused: a customer name of <img src=x onerror=alert(1)> shows as text and runs nothing", showsMarkupAsText],
  ["refused: the sixth wrong password (even right, it waits)", refusesSixthWrongPassword],
  ["refused: a session ended on the server, its cookie sent again", refusesEndedSession],
  [
    "the other pages: the list filtered, a refusal in words, extend and cancel confirmed, the log filtered, a replay",
    otherActions,
  ],
  [
    "the money: the open balance, payouts filtered, a payout's totals and report, tracking added to a shipment (refused in words first)",
    payoutsAndTracking,
  ],
  ["every page: no serious or critical axe violation, fits 375 px, under 100 KB, nothing elsewhere", everyPageChecked],
] as const;

/** The support case's application, approved by its customer at the gateway in the browser. */
async function approvedApplication(stack: Stack, token: string, orderNumber: string, fullName = "Jana Nováková") {
  const created = await stack.service.call(
    "POST",
    "/financing/v1/applications",
    applicationBody(stack.shop, "DEFERRED_PAYMENT", orderNumber, {
      fullName,
      agreed: true,
      variableSymbols: ["2026000123"],
    }),
    token,
  );
  const page = await stack.browser.newPage();
  try {
    await page.goto(created.gatewayRedirectUrl as string);
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/approved"),
      page.locator('button[name="action"][value="confirm"]').click(),
    ]);
  } finally {
    await page.close();
  }
  return created.id as string;
}

process.exit(
  await runScenarios(
    [main, other, locked],
    async (stack): Promise<World> => {
      const login = await stack.service.call("POST", "/authentication/v1/partner", {
        username: main.username,
        password: main.password,
      });
      const token = login.accessToken as string;
      const orderNumber = `SUP-${Date.now()}`;
      const applicationId = await approvedApplication(stack, token, orderNumber);
      await eventually("the READY notification at the shop", NOTIFICATION_TIMEOUT_MS, () =>
        stack.shop.notifications(applicationId).find((n) => JSON.parse(n.body).state === "READY"),
      );
      const markupId = await approvedApplication(stack, token, `XSS-${Date.now()}`, "<img src=x onerror=alert(1)>");
      return { ...stack, token, applicationId, orderNumber, markupId };
    },
    SCENARIOS,
  ),
);
