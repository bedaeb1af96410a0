import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ARCHIVED_PER_RUN, type ArchivedApplication, archiveFinished, CANDIDATES } from "../../src/db/archive";
import { runScheduled } from "../../src/scheduled";
import { call, json, signIn } from "../support/api";
import { AGE, advance, delivered, finished } from "../support/archive";
import { countRows, createApplication } from "../support/factories";
import { openGateway } from "../support/gateway";
import { app, put } from "../support/orders";
import { closeNow } from "../support/settlement-api";
import { dbOfApplication } from "../support/shards";
import { confirmed, T0, useClock } from "../support/time";

useClock();

/** The ARCHIVE bucket, its puts through `put`. */
const bucketWith = (put: (key: string, value: string) => Promise<void>) =>
  ({
    put,
    get: (key: string) => env.ARCHIVE.get(key),
    delete: (key: string) => env.ARCHIVE.delete(key),
  }) as unknown as R2Bucket;

const read = async (token: string, id: string) => {
  const res = await call("GET", app(id), { token });
  expect(res.status).toBe(200);
  return res.text();
};

/** What D1 holds of the application, table by table. */
async function rowsOf(id: string) {
  const of = (table: string) => countRows(table, "application_id = ?", id);
  return {
    orderLines: await of("order_lines"),
    events: await of("events"),
    // The test's own attempts (ids ending "-1", ./delivered): once the events are gone, nothing names them.
    attempts: await countRows("notification_attempts", "id LIKE ?", `%-1`),
    refunds: await of("refunds"),
    shipments: await of("shipments"),
    settlementEntries: await of("settlement_entries"),
    variableSymbols: await of("application_variable_symbols"),
  };
}

const tombstone = async (id: string) =>
  (await dbOfApplication(id))
    .prepare(
      `SELECT state, state_reason AS stateReason, order_number AS orderNumber, customer, order_details AS orderDetails,
       merchant_urls AS merchantUrls, customer_email AS customerEmail, accepted_offer AS acceptedOffer,
       decision_reasons AS decisionReasons, archive_key AS archiveKey, version
     FROM applications WHERE id = ?1`,
    )
    .bind(id)
    .first<Record<string, unknown>>();

/** The money of the application as the ledger and the application say it (CONTRACT 5, 6b). */
async function money(id: string) {
  const row = await (await dbOfApplication(id))
    .prepare(
      `SELECT a.refunded_amount AS refunded, a.total_amount AS financed, a.approved_amount AS approved,
       (SELECT COALESCE(SUM(amount), 0) FROM settlement_entries WHERE application_id = a.id AND type = 'SALE') AS sales,
       (SELECT COALESCE(SUM(amount), 0) FROM settlement_entries WHERE application_id = a.id AND type = 'REFUND') AS refundEntries
     FROM applications a WHERE a.id = ?1`,
    )
    .bind(id)
    .first<{ refunded: number; financed: number; approved: number; sales: number; refundEntries: number }>();
  return row!;
}

describe("the archive of finished applications", () => {
  it("archives one past its age on the sandbox's clock: read back byte-identical, a tombstone in D1, out of lists", async () => {
    const { partner, token } = await signIn();
    const { id } = await finished(token);
    const live = await createApplication(token);
    const before = await rowsOf(id);
    expect(before).toMatchObject({ orderLines: 3, events: 4, attempts: 4, shipments: 1, settlementEntries: 9 });

    // A day short of the age: nothing is archived.
    await advance(token, id, AGE / 1000 - 86_400);
    expect((await runScheduled(env)).archived).toEqual({ archived: 0, more: false });
    await advance(token, id, 86_400);
    const body = await read(token, id);

    const run = await runScheduled(env);

    expect(run.archived).toEqual({ archived: 1, more: false });
    expect(run.failed).toEqual([]);
    expect(await read(token, id)).toBe(body);
    // The tombstone: its state and order number kept, its content emptied; the lines, events and attempts
    // gone to the object; refunds, shipments, settlement entries and variable symbols kept in D1.
    const stone = await tombstone(id);
    expect(stone).toEqual({
      state: "READY",
      stateReason: "READY_PAID",
      orderNumber: expect.any(String),
      customer: "{}",
      orderDetails: "{}",
      merchantUrls: "{}",
      customerEmail: "",
      acceptedOffer: null,
      decisionReasons: null,
      archiveKey: `applications/${partner.id}/${id}/v${stone!.version}.json`,
      version: expect.any(Number),
    });
    expect(await rowsOf(id)).toEqual({ ...before, orderLines: 0, events: 0, attempts: 0 });
    const object = await (await env.ARCHIVE.get(String(stone!.archiveKey)))!.json<ArchivedApplication>();
    expect(object.format).toBe(1);
    expect(object.archivedAt).toBe(T0);
    expect(object.rows.order_lines).toHaveLength(3);
    expect(object.rows.events).toHaveLength(4);
    expect(object.rows.notification_attempts).toHaveLength(4);
    expect(object.rows.settlement_entries).toHaveLength(9);
    expect(object.rows.shipments).toHaveLength(1);

    const listed = await json<{ data: { id: string }[] }>(await call("GET", "/financing/v1/applications", { token }));
    expect(listed.data.map((a) => a.id)).toEqual([live.id]);
    // Another partner's still 404, and a second run finds nothing more.
    expect((await call("GET", app(id), { token: (await signIn()).token })).status).toBe(404);
    expect((await runScheduled(env)).archived).toEqual({ archived: 0, more: false });
  });

  it("a late refund brings it back and proceeds through the one write path; the money still adds up", async () => {
    const { token } = await signIn();
    const { id } = await finished(token);
    await advance(token, id, AGE / 1000);
    const archivedBody = JSON.parse(await read(token, id));
    expect((await runScheduled(env)).archived.archived).toBe(1);
    const key = String((await tombstone(id))!.archiveKey);

    const res = await call("POST", `${app(id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 5000, currency: "CZK" }, reason: "late goodwill" },
    });

    expect(res.status).toBe(201);
    const after = JSON.parse(await read(token, id));
    expect(after.order.refundedPrice).toEqual({ amount: 5000, currency: "CZK" });
    expect(after.order.refundablePrice.amount).toBe(archivedBody.order.refundablePrice.amount - 5000);
    // Everything else as before the archive: the customer, the lines, the state.
    expect({ ...after, order: { ...after.order, refundedPrice: 0, refundablePrice: 0 }, updatedAt: 0 }).toEqual({
      ...archivedBody,
      order: { ...archivedBody.order, refundedPrice: 0, refundablePrice: 0 },
      updatedAt: 0,
    });
    expect((await tombstone(id))!.archiveKey).toBeNull();
    expect(await rowsOf(id)).toMatchObject({
      orderLines: 3,
      events: 4,
      attempts: 4,
      refunds: 1,
      settlementEntries: 10,
    });
    expect(await env.ARCHIVE.head(key)).toBeNull();
    const m = await money(id);
    expect(m.refundEntries).toBe(-m.refunded);
    expect(m.sales).toBe(m.financed);
    expect(0 <= m.refunded && m.refunded <= m.financed && m.financed <= m.approved).toBe(true);

    // Live again, its age starts again, and its refund's entry waits for a payout: the archive leaves it
    // until both are over (the next payout takes the refund beside another order's sales).
    await advance(token, id, AGE / 1000);
    expect((await runScheduled(env)).archived.archived).toBe(0);
    await finished(token);
    expect(await countRows("settlement_entries", "application_id = ? AND payout_id IS NULL", id)).toBe(0);
    expect((await runScheduled(env)).archived.archived).toBe(1);
    expect(JSON.parse(await read(token, id)).order.refundedPrice.amount).toBe(5000);
  });

  it("its other reads answer as before (the order look-up, the gateway's page); a change it refuses leaves it archived", async () => {
    const { token } = await signIn();
    const created = await finished(token);
    const { id } = created;
    await advance(token, id, AGE / 1000);
    const lookup = `/financing/v1/orders?applicationId=${id}`;
    const [order, page] = [
      await (await call("GET", lookup, { token })).text(),
      await openGateway(created.gatewayRedirectUrl),
    ];
    expect((await runScheduled(env)).archived.archived).toBe(1);
    const stone = await tombstone(id);

    expect(await (await call("GET", lookup, { token })).text()).toBe(order);
    expect((await openGateway(created.gatewayRedirectUrl)).text).toBe(page.text);
    const tooMuch = await call("POST", `${app(id)}/refunds`, {
      token,
      body: { totalPrice: { amount: 99_999_999, currency: "CZK" } },
    });
    expect(tooMuch.status).toBe(422);
    expect(await tombstone(id)).toEqual(stone);
    expect(await rowsOf(id)).toMatchObject({ orderLines: 0, events: 0, refunds: 0 });
  });

  it("archives a rejected or cancelled application whatever its lines: nothing will ever send them", async () => {
    const { token } = await signIn();
    const rejected = await confirmed(token, "jana+reject@example.com");
    const cancelled = await createApplication(token);
    expect((await call("PUT", `${app(cancelled.id)}/cancel`, { token, body: {} })).status).toBe(200);
    for (const { id } of [rejected, cancelled]) {
      await delivered(id);
      await advance(token, id, AGE / 1000);
    }
    const bodies = [await read(token, rejected.id), await read(token, cancelled.id)];

    expect((await runScheduled(env)).archived).toEqual({ archived: 2, more: false });
    expect([await read(token, rejected.id), await read(token, cancelled.id)]).toEqual(bodies);
    expect(await countRows("order_lines", "application_id IN (?, ?)", rejected.id, cancelled.id)).toBe(0);
  });

  it("leaves what still waits on something: a notification being delivered, money not paid out, goods in transit", async () => {
    const { token } = await signIn();
    const pending = await confirmed(token);
    await put(token, `${app(pending.id)}/order/deliver`, {});
    await closeNow(token);
    const unpaid = await confirmed(token);
    await put(token, `${app(unpaid.id)}/order/deliver`, {});
    await delivered(unpaid.id);
    const inTransit = await confirmed(token);
    await put(token, `${app(inTransit.id)}/order/send`, {});
    await closeNow(token);
    await delivered(inTransit.id);
    for (const { id } of [pending, unpaid, inTransit]) await advance(token, id, AGE / 1000);

    expect((await runScheduled(env)).archived).toEqual({ archived: 0, more: false });

    await delivered(pending.id);
    expect((await runScheduled(env)).archived).toEqual({ archived: 1, more: false });
  });

  it("a write racing the archive wins: the archive's batch is refused whole and its object taken back", async () => {
    const { token } = await signIn();
    const { id } = await finished(token);
    await advance(token, id, AGE / 1000);
    // The refund lands between the archive's read and its batch (while its object is being put).
    const racing = bucketWith(async (key, value) => {
      const res = await call("POST", `${app(id)}/refunds`, {
        token,
        body: { totalPrice: { amount: 100, currency: "CZK" } },
      });
      expect(res.status).toBe(201);
      await env.ARCHIVE.put(key, value);
    });

    expect(await archiveFinished(await dbOfApplication(id), racing, Date.now(), AGE)).toEqual({
      archived: 0,
      more: false,
    });

    expect((await tombstone(id))!.archiveKey).toBeNull();
    expect(JSON.parse(await read(token, id)).order.refundedPrice.amount).toBe(100);
    expect(await rowsOf(id)).toMatchObject({ orderLines: 3, events: 4, refunds: 1 });
    expect((await env.ARCHIVE.list({ prefix: `applications/` })).objects.filter((o) => o.key.includes(id))).toEqual([]);
  });

  it("a run that stops after the put leaves the application live; the next run archives it", async () => {
    const { token } = await signIn();
    const { id } = await finished(token);
    await advance(token, id, AGE / 1000);
    const body = await read(token, id);
    const stopping = bucketWith(async (key, value) => {
      await env.ARCHIVE.put(key, value);
      throw new Error("the run stopped here");
    });
    await expect(archiveFinished(await dbOfApplication(id), stopping, Date.now(), AGE)).rejects.toThrow(
      "the run stopped here",
    );
    expect((await tombstone(id))!.archiveKey).toBeNull();
    expect(await read(token, id)).toBe(body);

    expect(await archiveFinished(await dbOfApplication(id), env.ARCHIVE, Date.now(), AGE)).toEqual({
      archived: 1,
      more: false,
    });
    expect(await read(token, id)).toBe(body);
  });

  it("archives at most its limit a run, oldest idle first, through the candidates' index", async () => {
    const { token } = await signIn();
    const { id: older } = await finished(token);
    const { id: newer } = await finished(token);
    await advance(token, older, AGE / 1000 + 60);
    await advance(token, newer, AGE / 1000);

    expect(await archiveFinished(await dbOfApplication(older), env.ARCHIVE, Date.now(), AGE, 1)).toEqual({
      archived: 1,
      more: true,
    });
    expect((await tombstone(older))!.archiveKey).not.toBeNull();
    expect((await tombstone(newer))!.archiveKey).toBeNull();
    expect(await archiveFinished(await dbOfApplication(older), env.ARCHIVE, Date.now(), AGE, 1)).toEqual({
      archived: 1,
      more: false,
    });
    expect(ARCHIVED_PER_RUN).toBe(50);
    const plan = await (await dbOfApplication(older))
      .prepare(`EXPLAIN QUERY PLAN ${CANDIDATES}`)
      .bind(Date.now(), 2)
      .all<{ detail: string }>();
    expect(plan.results[0]!.detail).toMatch(/^SEARCH a USING INDEX applications_archivable_idx \(idle_since<\?\)/);
  });
});
