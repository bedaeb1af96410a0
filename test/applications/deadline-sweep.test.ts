/**
 * Time in an application's life, through the API and the scheduled sweep: each deadline lapses as the
 * contract says (with one event), is judged at the moment of a request before the sweep has run, the
 * reminder comes once per deadline, a manual review settles (or a partner's cancel wins), and a backlog
 * of 10,000 due applications drains within a few runs.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { MAX_PER_RUN, sweepDeadlines } from "../../src/applications/deadline-sweep";
import { dueQuery } from "../../src/db/applications";
import { database } from "../../src/db/client";
import { scheduledServices } from "../../src/scheduled";
import { call, json, login, signIn } from "../support/api";
import { applicationRequest, countRows, createApplication } from "../support/factories";
import { hiddenFields, openGateway, postGateway, storedDecision } from "../support/gateway";
import { app, expect422, order, put } from "../support/orders";
import { dbOf } from "../support/shards";
import { application, at, confirmed, cron, DAY, events, HOUR, iso, T0, useClock } from "../support/time";

useClock();

describe("the customer's deadline", () => {
  it("lapses 72 hours after creation: CANCELLED / CANCELLED_EXPIRED, one event, the gateway shows it expired", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await createApplication(token);
    expect(created.expiresAt).toBe(iso(T0 + 72 * HOUR));

    token = await at(T0 + 72 * HOUR - 1000, partner);
    await cron();
    expect((await application(token, created.id)).state).toBe("PROCESSING");

    token = await at(T0 + 72 * HOUR, partner);
    await cron();
    const lapsed = await application(token, created.id);
    expect(lapsed).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_EXPIRED",
      cancellation: { reason: "APPLICATION_CANCELLED_EXPIRED" },
    });
    expect(lapsed.expiresAt).toBeUndefined();
    expect((await order(token, created.id)).items.map((i) => i.state)).toEqual(["CANCELLED", "CANCELLED", "CANCELLED"]);
    expect(await events(created.id)).toEqual([
      {
        type: "APPLICATION_STATE_CHANGED",
        state: "PROCESSING",
        stateReason: "PROCESSING_REDIRECT_NEEDED",
        expiresAt: T0 + 72 * HOUR,
      },
      { type: "APPLICATION_STATE_CHANGED", state: "CANCELLED", stateReason: "CANCELLED_EXPIRED", expiresAt: null },
    ]);
    const page = await openGateway(created.gatewayRedirectUrl);
    expect(page.text).toContain("This offer has expired");
    expect(page.html).not.toContain("<form");
    // A second run finds nothing due.
    await cron();
    expect(await events(created.id)).toHaveLength(2);
  });

  it("is judged at the moment of the request: past it, the gateway offers no form and a confirm decides nothing, before any sweep", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await createApplication(token);
    const shown = await openGateway(created.gatewayRedirectUrl);
    token = await at(T0 + 72 * HOUR + 1000, partner);

    const page = await openGateway(created.gatewayRedirectUrl);
    expect(page.text).toContain("This offer has expired");
    expect(page.html).not.toContain("<form");
    const late = await postGateway(created.gatewayRedirectUrl, { ...hiddenFields(shown.html), action: "confirm" });
    expect(late.status).toBe(303);
    expect(late.headers.get("Location")).toContain("/rejected");
    expect(await storedDecision(created.id)).toMatchObject({ state: "PROCESSING", decidedAt: null });
    // The partner cannot change the order any more either.
    const change = await put(token, `${app(created.id)}/order`, { order: applicationRequest().order });
    await expect422(change, "AUTHORIZATION_EXPIRED");
  });
});

describe("the authorization's deadline", () => {
  it("with nothing sent: after 28 days CANCELLED / CANCELLED_EXPIRED, nothing left financed", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await confirmed(token);
    expect((await application(token, created.id)).expiresAt).toBe(iso(T0 + 28 * DAY));

    token = await at(T0 + 28 * DAY, partner);
    await cron();
    expect(await application(token, created.id)).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_EXPIRED",
    });
    const lapsed = await order(token, created.id);
    expect(lapsed.totalPrice.amount).toBe(0);
    expect(lapsed.refundablePrice.amount).toBe(0);
    // Straight past the reminder's day to the deadline: the lapse, and no reminder of a lapsed deadline.
    expect((await events(created.id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "READY_TO_SHIP",
      "CANCELLED_EXPIRED",
    ]);
  });

  it("with part sent: the goods not sent are cancelled, what went out stays financed and refundable, READY stays", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await confirmed(token);
    expect((await put(token, `${app(created.id)}/order/send`, { items: [{ code: "KB-01" }] })).status).toBe(200);
    await call("POST", `${app(created.id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 2000, currency: "CZK" } },
    });

    token = await at(T0 + 28 * DAY, partner);
    await cron();
    const after = await order(token, created.id);
    expect(after.applicationInfo).toMatchObject({ state: "READY", stateReason: "READY_SHIPPED" });
    expect(after.items.map((i) => [i.code, i.state])).toEqual([
      ["KB-01", "SENT"],
      ["BK-7", "CANCELLED"],
      ["SHIP", "CANCELLED"],
    ]);
    expect(after.totalPrice.amount).toBe(152_000);
    expect(after.refundedPrice.amount).toBe(2000);
    expect(after.refundablePrice.amount).toBe(150_000);
    expect((await application(token, created.id)).expiresAt).toBeUndefined();
    // One event for the lapse, although state and reason stay.
    expect((await events(created.id)).at(-1)).toEqual({
      type: "APPLICATION_STATE_CHANGED",
      state: "READY",
      stateReason: "READY_SHIPPED",
      expiresAt: null,
    });
  });

  it("is judged at the moment of the request: a send one second after expiresAt is refused, before the sweep", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await confirmed(token);
    const before = await order(token, created.id);
    token = await at(T0 + 28 * DAY + 1000, partner);

    const body = await expect422(await put(token, `${app(created.id)}/order/send`), "AUTHORIZATION_EXPIRED");
    expect(body.errors[0]).toMatchObject({ code: "AUTHORIZATION_EXPIRED" });
    await expect422(await put(token, `${app(created.id)}/order/deliver`), "AUTHORIZATION_EXPIRED");
    await expect422(await put(token, `${app(created.id)}/authorization/extend`), "AUTHORIZATION_EXPIRED");
    expect(await order(token, created.id)).toEqual(before);
    // One second before, the same send goes out.
    const other = await confirmed(token);
    token = await at(Date.now() + 28 * DAY - 1000, partner);
    expect((await put(token, `${app(other.id)}/order/send`)).status).toBe(200);
  });

  it("reminds once per deadline, 7 days before, and again after an extension", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await confirmed(token);
    const reminders = async () => (await events(created.id)).filter((e) => e.type === "AUTHORIZATION_EXPIRING");

    token = await at(T0 + 21 * DAY - 1000, partner);
    await cron();
    expect(await reminders()).toEqual([]);
    token = await at(T0 + 21 * DAY, partner);
    await cron();
    await cron();
    expect(await reminders()).toEqual([
      { type: "AUTHORIZATION_EXPIRING", state: "READY", stateReason: "READY_TO_SHIP", expiresAt: T0 + 28 * DAY },
    ]);

    // Extended on day 22: a new deadline 28 days on, and its own reminder 7 days before it.
    token = await at(T0 + 22 * DAY, partner);
    const extended = await put(token, `${app(created.id)}/authorization/extend`);
    expect(extended.status).toBe(200);
    expect((await json<{ expiresAt: string }>(extended)).expiresAt).toBe(iso(T0 + 50 * DAY));
    token = await at(T0 + 43 * DAY, partner);
    await cron();
    expect((await reminders()).map((r) => r.expiresAt)).toEqual([T0 + 28 * DAY, T0 + 50 * DAY]);
  });
});

describe("a manual review", () => {
  it("keeps the confirmed application PROCESSING_MANUAL_REVIEW (one event), then settles it to READY or REJECTED", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const approving = await confirmed(token, "jana+review@example.com");
    const rejecting = await confirmed(token, "petr+review-reject@example.com");
    for (const id of [approving.id, rejecting.id]) {
      expect(await application(token, id)).toMatchObject({
        state: "PROCESSING",
        stateReason: "PROCESSING_MANUAL_REVIEW",
      });
      expect((await application(token, id)).expiresAt).toBeUndefined();
    }
    const page = await openGateway(approving.gatewayRedirectUrl);
    expect(page.text).toContain("We are reviewing your application");

    token = await at(T0 + 600_000, partner);
    await cron();
    expect(await application(token, approving.id)).toMatchObject({ state: "READY", stateReason: "READY_TO_SHIP" });
    expect((await application(token, approving.id)).expiresAt).toBe(iso(T0 + 600_000 + 28 * DAY));
    expect(await application(token, rejecting.id)).toMatchObject({ state: "REJECTED", stateReason: "REJECTED" });
    expect((await events(approving.id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "PROCESSING_MANUAL_REVIEW",
      "READY_TO_SHIP",
    ]);
    expect((await storedDecision(approving.id)).approvedAmount).toBe(200_000);
  });

  it("changes nothing and sends nothing when it settles after the partner cancelled", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    const created = await confirmed(token, "jana+review@example.com");
    expect((await put(token, `${app(created.id)}/cancel`, {})).status).toBe(200);
    token = await at(T0 + 600_000, partner);
    await cron();
    expect(await application(token, created.id)).toMatchObject({
      state: "CANCELLED",
      stateReason: "CANCELLED_NOT_PAID",
    });
    expect((await events(created.id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "PROCESSING_MANUAL_REVIEW",
      "CANCELLED_NOT_PAID",
    ]);
  });

  it("racing a partner's cancel: the cancel always stands, and no approval follows it", async () => {
    const { partner, token: first } = await signIn();
    let token = first;
    for (let round = 0; round < 5; round++) {
      token = await at(T0, partner);
      const created = await confirmed(token, "jana+review@example.com");
      token = await at(T0 + 600_000, partner);
      const [cancel] = await Promise.all([put(token, `${app(created.id)}/cancel`, {}), cron()]);
      const reasons = (await events(created.id)).map((e) => e.stateReason);
      expect(reasons.at(-1)).toBe("CANCELLED_NOT_PAID");
      expect(cancel.status).toBe(200);
      // Either the cancel came first (no settlement), or the settlement did and the cancel followed it.
      expect([
        ["PROCESSING_REDIRECT_NEEDED", "PROCESSING_MANUAL_REVIEW", "CANCELLED_NOT_PAID"],
        ["PROCESSING_REDIRECT_NEEDED", "PROCESSING_MANUAL_REVIEW", "READY_TO_SHIP", "CANCELLED_NOT_PAID"],
      ]).toContainEqual(reasons);
    }
  });
});

describe("the sweep", () => {
  it("finds due applications through its index, never by a scan or a sort, from the start and after a cursor", async () => {
    for (const cursor of [null, { nextDueAt: T0 - DAY, id: "01JD0000000000000000000000" }]) {
      const statement = dueQuery(database(env), T0, cursor, 25).toSQL();
      const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${statement.sql}`)
        .bind(...statement.params)
        .all<{ detail: string }>();
      const details = plan.results.map((r) => r.detail);
      expect(details.join("; ")).toMatch(
        /^SEARCH applications USING (COVERING )?INDEX applications_due_idx \(next_due_at/,
      );
      expect(details.join("; ")).not.toMatch(/SCAN applications|TEMP B-TREE/);
    }
  });

  it("goes on past an application no statement can read: it is logged and skipped, another partner's lapse applies", async () => {
    // As the issue found it: an application whose lines are more than D1 returns as one value (2 MB),
    // planted beside the service's own checks (they refuse to build one now), due before the others.
    const { partner: careless } = await signIn();
    // On one shard, which the sweep runs on.
    const { partner, token } = await signIn({ shard: careless.shard });
    const created = await createApplication(token);
    const unreadable = "UNREADABLE0000000000000000";
    await dbOf(careless)
      .prepare(
        `INSERT INTO applications (id, partner_id, type, state, state_reason, agreement_terms_and_conditions, customer,
         order_details, merchant_urls, order_number, customer_email, variable_symbols, currency, total_amount,
         refunded_amount, event_sequence, version, expires_at, next_due_at, created_at, updated_at)
       VALUES (?, ?, 'DEFERRED_PAYMENT', 'PROCESSING', 'PROCESSING_REDIRECT_NEEDED', 1, '{"email":"a@example.com"}',
         '{"number":"B","variableSymbols":[]}', '{"approvedRedirect":"https://shop.example.com/ok","rejectedRedirect":"https://shop.example.com/no","notificationEndpoint":"https://shop.example.com/n"}',
         'B', 'a@example.com', '', 'CZK', 300, 0, 1, 0, ?, ?, ?, ?)`,
      )
      .bind(unreadable, careless.id, T0 - DAY, T0 - DAY, T0 - 4 * DAY, T0 - 4 * DAY)
      .run();
    await dbOf(careless)
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
       INSERT INTO order_lines (id, application_id, position, code, name, type, product_url, quantity,
         total_price_amount, total_vat_rate, total_vat_amount, state, created_at, updated_at)
       SELECT printf('LINE%022d', i), ?, i, 'C' || i, 'N', 'PHYSICAL', printf('https://x.example/%.8500c', 'u'), 1, 1,
         21, 0, 'PROCESSING', ?, ? FROM n`,
      )
      .bind(unreadable, T0, T0)
      .run();
    const logged = vi.spyOn(console, "error");

    vi.setSystemTime(T0 + 73 * HOUR);
    const run = await sweepDeadlines(scheduledServices(env, [], careless.shard));

    expect(run).toEqual({ applied: 1, more: false });
    const lapsed = await application(await login(partner), created.id);
    expect(lapsed).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_EXPIRED" });
    const lines = logged.mock.calls.map(([line]) => JSON.parse(String(line)));
    expect(lines).toContainEqual({
      level: "error",
      message: "deadline sweep: application skipped",
      applicationId: unreadable,
      partnerId: careless.id,
      error: expect.objectContaining({ message: expect.any(String) }),
    });
    // Untouched, and found due again by the next run (which skips it again, and goes on).
    expect(await countRows("applications", "id = ? AND next_due_at = ?", unreadable, T0 - DAY)).toBe(1);
  });

  it("drains a backlog of 10,000 due applications within two runs, each lapsed once with its event", async () => {
    const { partner } = await signIn();
    const backlog = 10_000;
    await dbOf(partner)
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO applications (id, partner_id, type, state, state_reason, agreement_terms_and_conditions, customer,
         order_details, merchant_urls, order_number, customer_email, variable_symbols, currency, total_amount,
         refunded_amount, event_sequence, version, expires_at, next_due_at, created_at, updated_at)
       SELECT printf('BACKLOG%019d', i), ?, 'DEFERRED_PAYMENT', 'PROCESSING', 'PROCESSING_REDIRECT_NEEDED', 1,
         '{"email":"a@example.com"}', '{"number":"B","variableSymbols":[]}',
         '{"approvedRedirect":"https://shop.example.com/ok","rejectedRedirect":"https://shop.example.com/no","notificationEndpoint":"https://shop.example.com/n"}',
         'B' || i, 'a@example.com', '', 'CZK', 0, 0, 1, 0, ?, ?, ?, ? FROM n`,
      )
      .bind(backlog, partner.id, T0 - DAY, T0 - DAY, T0 - 4 * DAY, T0 - 4 * DAY)
      .run();
    const due = () => countRows("applications", "partner_id = ? AND next_due_at <= ?", partner.id, T0);
    expect(await due()).toBe(backlog);

    const services = scheduledServices(env, [], partner.shard);
    const runs: number[] = [];
    while ((await due()) > 0 && runs.length < 5) runs.push((await sweepDeadlines(services)).applied);
    expect(runs).toEqual([MAX_PER_RUN, backlog - MAX_PER_RUN]);
    expect(await countRows("applications", "partner_id = ? AND state_reason = 'CANCELLED_EXPIRED'", partner.id)).toBe(
      backlog,
    );
    expect(await countRows("events", "partner_id = ? AND state_reason = 'CANCELLED_EXPIRED'", partner.id)).toBe(
      backlog,
    );
  }, 120_000);
});

describe("where SANDBOX is off", () => {
  const PRODUCTION = { SANDBOX: "false" };

  it("has no advance-time (404) and takes a '+approve' customer above the limit as anyone: rejected", async () => {
    const { token } = await signIn();
    const created = await createApplication(token);
    const advance = await call("POST", `/financing/v1/sandbox/applications/${created.id}/advance-time`, {
      token,
      body: { seconds: 60 },
      vars: PRODUCTION,
    });
    expect(advance.status).toBe(404);
    expect(await json(advance)).toMatchObject({ error: "not_found" });
    // Not there whatever is sent: a body it would refuse is not looked at.
    for (const body of [{ seconds: 0 }, { seconds: "soon" }, {}]) {
      const refused = await call("POST", `/financing/v1/sandbox/applications/${created.id}/advance-time`, {
        token,
        body,
        vars: PRODUCTION,
      });
      expect(refused.status).toBe(404);
    }

    const body = applicationRequest({ email: "jana+approve@example.com" });
    // 60,000.00 CZK: above the DEFERRED_PAYMENT limit of 50,000.00 CZK.
    body.order.items = [
      {
        ...body.order.items[0]!,
        quantity: 1,
        unitPrice: undefined,
        totalPrice: { amount: 6_000_000, currency: "CZK" },
      } as never,
    ];
    body.order.totalPrice = { amount: 6_000_000, currency: "CZK" };
    body.order.totalVat = [{ vatRate: 21, amount: body.order.items[0]!.totalVat.amount, currency: "CZK" }];
    const over = await call("POST", "/financing/v1/applications", { token, body, vars: PRODUCTION });
    expect(over.status).toBe(201);
    const { gatewayRedirectUrl, id } = await json<{ gatewayRedirectUrl: string; id: string }>(over);
    const page = await openGateway(gatewayRedirectUrl, PRODUCTION);
    await postGateway(gatewayRedirectUrl, { ...hiddenFields(page.html), action: "confirm" }, PRODUCTION);
    expect(await storedDecision(id)).toMatchObject({ state: "REJECTED", decisionReasons: ["AMOUNT_OVER_LIMIT"] });
  });
});
