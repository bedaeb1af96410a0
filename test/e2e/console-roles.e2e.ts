/**
 * `npm run test:e2e`, second part: the console's people and roles through a real browser against
 * `wrangler dev` (the stack of test/e2e/harness.ts, with one partner of its own).
 *
 * The partner's API credentials sign in (the migration period) and add the first ADMIN, who sets up
 * their sign-in from the one-time link (a password, the authenticator's secret read from the page and
 * its code computed as an app would) and adds a VIEWER, a SUPPORT and a FINANCE person and the SUPPORT
 * refund limit; from then on the credentials no longer open the console. Then each role in turn sets
 * up from its link and uses every page and action it may (each works), and is refused what it may not:
 * the page says which role it needs, and a crafted POST with the session's valid CSRF token is answered
 * 403. Last, the ADMIN reads the audit log of it all, rotates and replays, changes a role, and removes
 * the VIEWER, whose open session is refused on its next request.
 *
 * Every page visited is checked as the console's other pages are (./console-pages.ts): axe-core, 375 px,
 * under 100 KB, nothing of any other origin.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page } from "playwright-core";
import { totpCode } from "../../src/domain/totp";
import { assertQuiet, inspect, openContext, reports, signIn, text } from "./console-pages";
import { applicationBody, newCredentials, runScenarios, type Stack } from "./harness";

const partner = newCredentials("e2e-roles");
const PASSWORD = "a long enough password 1";

type Role = "ADMIN" | "VIEWER" | "SUPPORT" | "FINANCE";

interface Signed {
  email: string;
  context: BrowserContext;
  page: Page;
}

interface World extends Stack {
  token: string;
  /** Sent: refundable CZK 1,001.00. */
  shippedId: string;
  /** Approved, nothing sent: SUPPORT extends it and marks it sent. */
  readyId: string;
  /** Approved: SUPPORT cancels it. */
  cancelId: string;
  /** Each role's setup link, made by the ADMIN. */
  links: Partial<Record<Role, string>>;
  /** Each role's browser, signed in (kept: the VIEWER's session is refused once removed). */
  signed: Partial<Record<Role, Signed>>;
}

const emailOf = (role: Role) => `${role.toLowerCase()}@roles.example`;

/** The session's CSRF token, as every signed-in page carries it in its sign-out form. */
const csrfOf = (page: Page) =>
  page.locator('form[action="/console/sign-out"] input[name="csrf"]').getAttribute("value");

/**
 * A crafted POST of a signed-in browser: its cookies and the session's valid CSRF token, as another tab
 * or a script with the person's session would send it. Answers the status, redirects not followed.
 */
async function craftedPost(signed: Signed, path: string, fields: Record<string, string>) {
  const origin = new URL(signed.page.url()).origin;
  const csrf = await csrfOf(signed.page);
  assert.ok(csrf, "the page carries the session's CSRF token");
  const res = await signed.context.request.post(`${origin}${path}`, {
    form: { csrf, once: `crafted-${Math.random().toString(36).slice(2, 12)}`, ...fields },
    maxRedirects: 0,
  });
  return { status: res.status(), text: await res.text() };
}

/** Opens the setup link in a browser of its own, sets up the sign-in as the app would, lands signed in. */
async function setUp(world: World, role: Role, name: string): Promise<Signed> {
  const link = world.links[role];
  assert.ok(link, `a setup link for ${role}`);
  const { context, page } = await openContext(world);
  await page.goto(link);
  assert.match(
    await text(page),
    new RegExp(`Partner account ${partner.username} E-mail \\(your user name\\) ${emailOf(role)} Role ${role}`),
  );
  await inspect(page, `setup (${role})`, role === "ADMIN" ? "setup" : undefined);
  await page.getByLabel("New password").fill(PASSWORD);
  await page.getByLabel("Repeat the password").fill(PASSWORD);
  const secret = await page.getByLabel("Secret", { exact: true }).inputValue();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  await page.getByLabel("Code from the app").fill(totpCode(secret, Date.now()));
  await page.getByRole("button", { name: "Finish setup and sign in" }).click();
  await page.waitForURL((url) => url.pathname === "/console/applications");
  // The link worked once: opened again, it is gone.
  const again = await context.newPage();
  const res = await again.goto(link);
  assert.equal(res?.status(), 404);
  await again.close();
  const signed = { email: emailOf(role), context, page };
  world.signed[role] = signed;
  await inspect(page, `applications (${name})`);
  return signed;
}

/** Confirms an action of the application page: its form, then its confirmation. */
async function confirmAction(
  page: Page,
  origin: string,
  id: string,
  ask: string,
  confirm: string,
  fill?: () => Promise<void>,
) {
  await page.goto(`${origin}/console/applications/${id}`);
  await fill?.();
  await page.getByRole("button", { name: ask }).click();
  await page.waitForLoadState("load");
  await page.getByRole("button", { name: confirm }).click();
  await page.waitForURL((url) => url.searchParams.has("done"));
}

/** Whether the page answered 403 naming the role, and (checked) shows it accessibly. */
async function refusedPage(page: Page, origin: string, path: string, role: Role, needed: Role) {
  const res = await page.goto(`${origin}${path}`);
  assert.equal(res?.status(), 403, `${path} refused`);
  assert.match(await text(page), new RegExp(`This needs the ${needed} role; yours is ${role}\\.`));
}

// ---------------------------------------------------------------------------------------------------
// The scenarios, in order: each builds on the one before.

async function firstAdminFromCredentials(world: World): Promise<void> {
  const origin = world.service.origin;
  const { context, page, watch } = await openContext(world);
  try {
    await signIn(page, origin, partner);
    await page.getByRole("link", { name: "People" }).click();
    await page.waitForURL((url) => url.pathname === "/console/people");
    assert.match(await text(page), /No people yet: add yourself as the first ADMIN below\./);
    await inspect(page, "people (empty)");
    await page.getByLabel("E-mail").fill(emailOf("ADMIN"));
    await page.getByLabel("Role", { exact: true }).selectOption("ADMIN");
    await page.getByRole("button", { name: "Add and show the setup link" }).click();
    await page.waitForLoadState("load");
    world.links.ADMIN = await page.getByLabel("Setup link").inputValue();
    assert.match(world.links.ADMIN, /\/console\/setup\/\d+\.[A-Za-z0-9_-]{43}$/);
    assert.ok(!page.url().includes(world.links.ADMIN.split("/").at(-1)!), "the link is not in the address");
    await inspect(page, "setup link", "setup-link");
    assertQuiet(watch);
  } finally {
    await context.close();
  }
  const admin = await setUp(world, "ADMIN", "ADMIN");
  // The ADMIN adds the others and SUPPORT's refund limit.
  for (const role of ["VIEWER", "SUPPORT", "FINANCE"] as const) {
    await admin.page.goto(`${origin}/console/people`);
    await admin.page.getByLabel("E-mail").fill(emailOf(role));
    await admin.page.getByLabel("Role", { exact: true }).selectOption(role);
    await admin.page.getByRole("button", { name: "Add and show the setup link" }).click();
    await admin.page.waitForLoadState("load");
    world.links[role] = await admin.page.getByLabel("Setup link").inputValue();
  }
  await admin.page.goto(`${origin}/console/people`);
  await admin.page.getByLabel("Amount").fill("100.00");
  await admin.page.getByLabel("Currency").fill("CZK");
  await admin.page.getByRole("button", { name: "Set the limit" }).click();
  await admin.page.waitForLoadState("load");
  assert.match(await text(admin.page), /SUPPORT now refunds at most CZK 100\.00 at once\./);
  await inspect(admin.page, "people", "people");
  // The ADMIN has set up: the partner's credentials no longer open the console.
  const legacy = await openContext(world);
  try {
    await legacy.page.goto(`${origin}/console/sign-in`);
    await legacy.page.getByLabel("User name").fill(partner.username);
    await legacy.page.getByLabel("Password").fill(partner.password);
    await legacy.page.getByRole("button", { name: "Sign in" }).click();
    await legacy.page.waitForLoadState("load");
    assert.match(await text(legacy.page), /The partner's API credentials no longer open the console\./);
    await inspect(legacy.page, "credentials retired (403)");
  } finally {
    await legacy.context.close();
  }
}

async function viewer(world: World): Promise<void> {
  const origin = world.service.origin;
  const signed = await setUp(world, "VIEWER", "VIEWER");
  const { page } = signed;
  await page.goto(`${origin}/console/applications/${world.shippedId}`);
  const shown = await text(page);
  assert.match(shown, /Refund Not possible now: This needs the SUPPORT role; yours is VIEWER\./);
  assert.ok(!shown.includes("Customer's payment page"), "the payment page's link is not shown");
  assert.equal(await page.getByRole("button", { name: /Resend/ }).count(), 0);
  await inspect(page, "application (VIEWER)");
  await page.getByRole("link", { name: "Notifications" }).click();
  await page.waitForURL((url) => url.pathname === "/console/notifications");
  assert.match(await text(page), /This needs the ADMIN role; yours is VIEWER\./);
  await inspect(page, "notifications (VIEWER)");
  await page.getByRole("link", { name: "Your sign-in" }).click();
  await page.waitForURL((url) => url.pathname === "/console/account");
  assert.match(await text(page), /viewer@roles\.example Role VIEWER/);
  assert.match(await text(page), /\(this one\)/);
  await inspect(page, "your sign-in", "account");
  await refusedPage(page, origin, "/console/people", "VIEWER", "ADMIN");
  await inspect(page, "refused by role (403)");
  await refusedPage(page, origin, "/console/audit", "VIEWER", "ADMIN");
  await page.goto(`${origin}/console/applications`);
  for (const [path, fields] of [
    [`/console/applications/${world.shippedId}/refund`, { amount: "1.00" }],
    [`/console/applications/${world.readyId}/send`, {}],
    ["/console/notifications/replay", { from: "2026-01-01T00:00" }],
    ["/console/people", { email: "crafted@roles.example", role: "ADMIN" }],
  ] as const) {
    const res = await craftedPost(signed, path, fields);
    assert.equal(res.status, 403, `crafted POST ${path}`);
    assert.match(res.text, /This needs the (SUPPORT|ADMIN) role; yours is VIEWER\./);
  }
}

async function support(world: World): Promise<void> {
  const origin = world.service.origin;
  const signed = await setUp(world, "SUPPORT", "SUPPORT");
  const { page } = signed;
  await confirmAction(page, origin, world.readyId, "Extend authorization…", "Confirm extension");
  assert.match(await text(page, "#notice"), /The authorization was extended\./);
  await confirmAction(page, origin, world.readyId, "Mark order sent…", "Confirm: the order is sent");
  assert.match(await text(page, "#notice"), /The whole order is marked sent\./);
  await confirmAction(page, origin, world.shippedId, "Refund…", "Confirm refund", () =>
    page.getByLabel(/^Amount/).fill("50.00"),
  );
  assert.match(await text(page, "#notice"), /The refund was created\./);
  // Beyond SUPPORT's limit: refused in words, naming the role that refunds more.
  await page.goto(`${origin}/console/applications/${world.shippedId}`);
  await page.getByLabel(/^Amount/).fill("150.00");
  await page.getByRole("button", { name: "Refund…" }).click();
  await page.waitForLoadState("load");
  assert.match(await text(page), /refunds at most CZK 100\.00 at once: a person with the FINANCE role refunds more\./);
  await inspect(page, "refund beyond the limit (403)");
  await confirmAction(page, origin, world.cancelId, "Cancel application…", "Confirm cancellation");
  assert.match(await text(page, "#notice"), /The application was cancelled\./);
  await page.goto(`${origin}/console/applications/${world.shippedId}`);
  await page
    .getByRole("button", { name: /Resend/ })
    .first()
    .click();
  await page.waitForURL((url) => url.searchParams.get("done") === "resend");
  await refusedPage(page, origin, "/console/audit", "SUPPORT", "ADMIN");
  await page.goto(`${origin}/console/applications`);
  for (const path of ["/console/notification-secret/rotate", "/console/notifications/replay"]) {
    const res = await craftedPost(signed, path, { from: "2026-01-01T00:00" });
    assert.equal(res.status, 403, `crafted POST ${path}`);
  }
  const beyond = await craftedPost(signed, `/console/applications/${world.shippedId}/refund`, { amount: "500.00" });
  assert.equal(beyond.status, 403, "a crafted refund beyond the limit");
}

async function finance(world: World): Promise<void> {
  const origin = world.service.origin;
  const signed = await setUp(world, "FINANCE", "FINANCE");
  const { page } = signed;
  await confirmAction(page, origin, world.shippedId, "Refund…", "Confirm refund", () =>
    page.getByLabel(/^Amount/).fill("200.00"),
  );
  assert.match(await text(page, "#notice"), /The refund was created\./);
  assert.match(await text(page, "#money-refunded"), /CZK 250\.00/);
  await refusedPage(page, origin, "/console/people", "FINANCE", "ADMIN");
  await page.goto(`${origin}/console/notifications`);
  assert.match(await text(page), /This needs the ADMIN role; yours is FINANCE\./);
  for (const path of ["/console/notification-secret/rotate", "/console/people/refund-limit"]) {
    const res = await craftedPost(signed, path, { amount: "1000000", currency: "CZK" });
    assert.equal(res.status, 403, `crafted POST ${path}`);
  }
}

async function adminAfterwards(world: World): Promise<void> {
  const origin = world.service.origin;
  const admin = world.signed.ADMIN!;
  const { page } = admin;
  await page.goto(`${origin}/console/audit`);
  const log = await text(page);
  for (const seen of [
    /finance@roles\.example \S+ createRefund \(CONSOLE\)/,
    /support@roles\.example \S+ createRefund \(CONSOLE\)/,
    /support@roles\.example \S+ cancelApplication \(CONSOLE\)/,
    /viewer@roles\.example \S+ createRefund \(CONSOLE\) \S+ \S+ REFUSED FORBIDDEN/,
    /API [0-9a-f]{16} createApplication \(API\)/,
  ]) {
    assert.match(log, seen);
  }
  await inspect(page, "audit log", "audit-log");
  await page.getByLabel("Outcome").selectOption("REFUSED");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.waitForURL((url) => url.searchParams.get("outcome") === "REFUSED");
  assert.ok(!(await text(page, "tbody")).includes("SUCCEEDED"), "only refusals");
  await inspect(page, "audit log filtered");
  // The API reads the same log.
  const api = await world.service.call(
    "GET",
    "/financing/v1/audit-events?filter=source|eq|CONSOLE;operation|eq|createRefund;outcome|eq|SUCCEEDED",
    undefined,
    world.token,
  );
  assert.deepEqual(
    (api.data as { actor: { name: string }; totalPrice: { amount: number } }[]).map((e) => [
      e.actor.name,
      e.totalPrice.amount,
    ]),
    [
      ["support@roles.example", 5000],
      ["finance@roles.example", 20000],
    ],
  );
  // Rotation and replay are the ADMIN's.
  await page.goto(`${origin}/console/notifications`);
  await page.getByRole("button", { name: "Rotate signing secret" }).click();
  await page.waitForURL((url) => url.pathname === "/console/notification-secret/rotate");
  assert.match(await page.getByLabel("New signing secret").inputValue(), /^whsec_/);
  await page.goto(`${origin}/console/notifications`);
  await page.getByLabel(/^Occurred from/).fill("2026-01-01T00:00");
  await page.getByRole("button", { name: "Replay failed notifications" }).click();
  await page.waitForURL((url) => url.pathname === "/console/notifications/replay");
  // A role changed, then the VIEWER removed: their open session is refused on its next request.
  await page.goto(`${origin}/console/people`);
  await page.getByLabel("Role of finance@roles.example").selectOption("VIEWER");
  await page.locator("tr", { hasText: "finance@roles.example" }).getByRole("button", { name: "Change role" }).click();
  await page.waitForLoadState("load");
  assert.match(await text(page, "#notice"), /finance@roles\.example is VIEWER now\./);
  const row = page.locator("tr", { hasText: "viewer@roles.example" });
  await row.getByLabel(/Remove viewer@roles\.example/).check();
  await row.getByRole("button", { name: "Remove" }).click();
  await page.waitForLoadState("load");
  assert.match(await text(page, "#notice"), /viewer@roles\.example was removed; their sessions have ended\./);
  const viewerPage = world.signed.VIEWER!.page;
  await viewerPage.goto(`${origin}/console/applications`);
  assert.equal(new URL(viewerPage.url()).pathname, "/console/sign-in", "the removed person's session is refused");
}

async function everyPageChecked(): Promise<void> {
  const names = reports.map((r) => r.name);
  for (const name of ["setup link", "setup (ADMIN)", "people", "your sign-in", "audit log", "refused by role (403)"]) {
    assert.ok(names.includes(name), `${name} was checked`);
  }
  console.log("  page                            bytes  axe violations (impact)  width at 375 px");
  for (const r of reports) {
    const found =
      Object.entries(r.violations)
        .map(([impact, n]) => `${n} ${impact}`)
        .join(", ") || "none";
    console.log(`  ${r.name.padEnd(30)} ${String(r.bytes).padStart(6)}  ${found.padEnd(23)}  ${r.narrowWidth} px`);
  }
}

/** Closes the browsers the scenarios kept signed in. */
async function closeAll(world: World): Promise<void> {
  for (const signed of Object.values(world.signed)) await signed?.context.close();
}

const SCENARIOS = [
  [
    "the partner's credentials add the first ADMIN, who sets up from the link (once), adds the others and SUPPORT's limit; the credentials then no longer open the console",
    firstAdminFromCredentials,
  ],
  [
    "VIEWER: reads applications, notifications, its sessions; refused people, audit and every action, crafted POSTs too",
    viewer,
  ],
  [
    "SUPPORT: extends, marks sent, refunds within its limit, cancels, resends; refused beyond its limit, the audit log, rotation and replay",
    support,
  ],
  ["FINANCE: refunds beyond SUPPORT's limit; refused people, rotation and the limit", finance],
  [
    "ADMIN: the audit log of it all (console and API), rotation, replay, a role changed, the VIEWER removed and their open session refused",
    adminAfterwards,
  ],
  ["every page: no serious or critical axe violation, fits 375 px, under 100 KB, nothing elsewhere", everyPageChecked],
  ["(closing the browsers kept signed in)", closeAll],
] as const;

/** An application approved by its customer at the gateway, in the browser. */
async function approvedApplication(stack: Stack, token: string, orderNumber: string) {
  const created = await stack.service.call(
    "POST",
    "/financing/v1/applications",
    applicationBody(stack.shop, "DEFERRED_PAYMENT", orderNumber, { agreed: true }),
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
    [partner],
    async (stack): Promise<World> => {
      const login = await stack.service.call("POST", "/authentication/v1/partner", {
        username: partner.username,
        password: partner.password,
      });
      const token = login.accessToken as string;
      const tag = Date.now();
      const shippedId = await approvedApplication(stack, token, `ROLE-S-${tag}`);
      await stack.service.call("PUT", `/financing/v1/applications/${shippedId}/order/send`, {}, token);
      const readyId = await approvedApplication(stack, token, `ROLE-R-${tag}`);
      const cancelId = await approvedApplication(stack, token, `ROLE-C-${tag}`);
      return { ...stack, token, shippedId, readyId, cancelId, links: {}, signed: {} };
    },
    SCENARIOS,
  ),
);
