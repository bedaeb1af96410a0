import { describe, expect, it } from "vitest";
import { ENTRIES_SHOWN, SHIPMENTS_SHOWN } from "../../src/console/application-settlement";
import { MAX_ANSWER_BYTES } from "../../src/domain/application-size";
import { newId } from "../../src/ids";
import { signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { approvedWithTotal, shippedWithTotal } from "../support/orders";
import { dbHolding, dbOf, dbOfApplication } from "../support/shards";

const page = (id: string) => `/console/applications/${id}`;

/** The application's first event, then `count` later ones (one a second, delivered): their ids, oldest first. */
async function addEvents(applicationId: string, count: number): Promise<string[]> {
  const db = await dbOfApplication(applicationId);
  const first = (await db
    .prepare("SELECT id, occurred_at AS occurredAt FROM events WHERE application_id = ? ORDER BY sequence")
    .bind(applicationId)
    .first<{ id: string; occurredAt: number }>())!;
  const later = Array.from({ length: count }, (_, i) => ({ id: newId(first.occurredAt + (i + 1) * 1000), i }));
  if (count > 0)
    await db.batch(
      later.map(({ id, i }) =>
        db
          .prepare(
            `INSERT INTO events (id, application_id, partner_id, type, sequence, state, state_reason, occurred_at, status, delivered_at)
         SELECT ?1, application_id, partner_id, type, ?2, state, state_reason, occurred_at + ?3, 'DELIVERED', occurred_at + ?3
         FROM events WHERE id = ?4`,
          )
          .bind(id, i + 2, (i + 1) * 1000, first.id),
      ),
    );
  return [first.id, ...later.map((e) => e.id)];
}

/** `count` failed delivery attempts of the event, a second apart, the n-th answered with HTTP 500 + n. */
async function addAttempts(eventId: string, count: number, from: number) {
  const db = await dbHolding("events", eventId);
  await db.batch(
    Array.from({ length: count }, (_, n) =>
      db
        .prepare(
          "INSERT INTO notification_attempts (id, event_id, attempted_at, http_status, duration_ms) VALUES (?, ?, ?, ?, 40)",
        )
        .bind(newId(from + n * 1000), eventId, from + n * 1000, 500 + n),
    ),
  );
}

describe("GET /console/applications/:applicationId", () => {
  it("shows state, ids, the customer's payment page, dates, money and lines", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    await forceState(created.id, "READY", "READY_TO_SHIP");
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect(res.status).toBe(200);
    expect(res.text).toContain(`Order ${created.order.number as string}`);
    expect(res.text).toContain("State READY READY_TO_SHIP");
    expect(res.text).toContain(`Application id ${created.id}`);
    expect(res.text).toContain("Variable symbols 2026000123");
    expect(res.text).toContain("Customer Jana Nováková, jana.novakova@example.com");
    expect(res.text).toContain(created.gatewayRedirectUrl);
    expect(res.text).toMatch(/Approved CZK 2,000\.00 Financed CZK 2,000\.00 Refunded CZK 0\.00 Refundable CZK 0\.00/);
    expect(res.text).toContain("Mechanical keyboard KB-01 2 CZK 1,520.00 PROCESSING");
    expect(res.text).toContain("Guide to typing BK-7 1 CZK 160.00 PROCESSING");
  });

  it("lists every event with every delivery attempt and a Resend button", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const res = await browser.get(page(created.id));
    expect(res.text).toContain("APPLICATION_STATE_CHANGED PROCESSING PROCESSING_REDIRECT_NEEDED Delivery: PENDING");
    expect(res.text).toContain("No delivery attempt yet.");
    expect(res.html).toMatch(/action="\/console\/applications\/[0-9A-Z]+\/notifications\/[0-9A-Z]+\/resend"/);
    expect(res.html).toContain(">Resend<");
  });

  it("lists the latest 50 events in the order they happened, and says where the earlier ones are", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const ids = await addEvents(created.id, 59);
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect(res.status).toBe(200);
    const shown = [...res.html.matchAll(/<li id="event-([0-9A-Z]+)"/g)].map((m) => m[1]);
    expect(shown).toEqual(ids.slice(-50));
    expect(res.text).toContain("The latest 50 events are shown: earlier ones are on the notifications page");
    expect(res.html).toContain(`href="/console/notifications?applicationId=${created.id}"`);
  });

  it("says nothing of earlier events when every event is shown", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const ids = await addEvents(created.id, 49);
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect([...res.html.matchAll(/<li id="event-([0-9A-Z]+)"/g)].map((m) => m[1])).toEqual(ids);
    expect(res.text).not.toContain("earlier ones");
  });

  it("shows an event's latest 5 delivery attempts and how many there were", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const [eventId] = await addEvents(created.id, 0);
    await addAttempts(eventId!, 7, Date.now());
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect(res.text).toContain("Delivery attempts of event 1: the latest 5 of 7");
    const statuses = [...res.text.matchAll(/\b(50[0-9]) \d+ ms/g)].map((m) => m[1]);
    expect(statuses).toEqual(["502", "503", "504", "505", "506"]);
  });

  it("lists the latest 100 refunds and says that the API lists every one", async () => {
    const { partner, token } = await signIn();
    const id = await approvedWithTotal(token, 100000);
    const at = Date.now();
    await dbOf(partner).batch(
      Array.from({ length: 101 }, (_, n) =>
        dbOf(partner)
          .prepare(
            "INSERT INTO refunds (id, application_id, origin, amount, currency, reason, created_at) VALUES (?, ?, 'REFUND', 1, 'CZK', ?, ?)",
          )
          .bind(newId(at + n * 1000), id, `refund number ${n}`, at + n * 1000),
      ),
    );
    const res = await (await signedInBrowser(partner)).get(page(id));
    expect(res.text).toContain(
      `The latest 100 refunds are shown; the API lists every one (GET /financing/v1/applications/${id}/refunds).`,
    );
    const reasons = [...res.text.matchAll(/refund number (\d+)/g)].map((m) => Number(m[1]));
    expect(reasons).toEqual(Array.from({ length: 100 }, (_, n) => n + 1));
  });

  it("offers what the domain allows now and says why not the rest", async () => {
    const { partner, token } = await signIn();
    const waiting = await createApplication(token);
    const browser = await signedInBrowser(partner);
    const processing = await browser.get(page(waiting.id));
    expect(processing.text).toContain(
      "Refund Not possible now: The application is not approved yet. (APPLICATION_NOT_READY)",
    );
    expect(processing.html).toContain(`action="/console/applications/${waiting.id}/cancel"`);
    expect(processing.html).not.toContain(`action="/console/applications/${waiting.id}/refund"`);
    const ready = await approvedWithTotal(token, 50000);
    const approved = await browser.get(page(ready));
    for (const action of ["cancel", "send"]) {
      expect(approved.html).toContain(`action="/console/applications/${ready}/${action}"`);
    }
    // Refunds are of goods that went out: offered once something was sent.
    expect(approved.text).toContain(
      "Refund Not possible now: Nothing was sent yet: only goods that went out are refunded. Cancel items to reduce the order. (REFUND_LIMIT_EXCEEDED)",
    );
    const sent = await shippedWithTotal(token, 50000);
    expect((await browser.get(page(sent))).html).toContain(`action="/console/applications/${sent}/refund"`);
  });

  it(`stays within the ceiling of an answer whatever the texts: 500 lines, 100 refunds, ${SHIPMENTS_SHOWN} shipments of 10 tracking entries, ${ENTRIES_SHOWN} settlement entries, 50 events of escaped text`, async () => {
    const { partner, token } = await signIn();
    const id = await approvedWithTotal(token, 100000);
    // Every text at its longest, of the character that escapes longest in HTML ("&" → "&amp;"),
    // planted beside the service's own limits (they would refuse most of it).
    const amp = (n: number) => "&".repeat(n);
    const at = Date.now();
    await dbOf(partner)
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 499)
       INSERT INTO order_lines (id, application_id, position, code, name, type, quantity, total_price_amount,
         total_vat_rate, total_vat_amount, state, created_at, updated_at)
       SELECT printf('LINE%022d', i), ?1, i, printf('%.200c', '&') || i, ?2, 'PHYSICAL', 1, 0, 21, 0, 'SENT', ?3, ?3 FROM n`,
      )
      .bind(id, amp(255), at)
      .run();
    await dbOf(partner).batch(
      Array.from({ length: 100 }, (_, n) =>
        dbOf(partner)
          .prepare(
            "INSERT INTO refunds (id, application_id, origin, amount, currency, reason, created_at) VALUES (?, ?, 'REFUND', 1, 'CZK', ?, ?)",
          )
          .bind(newId(at + n), id, amp(500), at + n),
      ),
    );
    const tracking = Array.from({ length: 10 }, () => ({
      number: amp(100),
      carrier: amp(100),
      url: `https://example.com/?${amp(2048 - 21)}`,
      addedAt: at,
    }));
    const items = Array.from({ length: 4 }, () => ({
      code: amp(100),
      ean: null,
      name: amp(255),
      type: "PHYSICAL",
      quantity: 1,
      totalPrice: { amount: 1, currency: "CZK" },
    }));
    await dbOf(partner).batch([
      ...Array.from({ length: SHIPMENTS_SHOWN + 1 }, (_, n) =>
        dbOf(partner)
          .prepare(
            `INSERT INTO shipments (id, application_id, partner_id, reference, items, total_amount, currency, sent_date, delivery_carrier, tracking, line_ids, created_at)
           VALUES (?, ?, ?, ?, ?, 4, 'CZK', '2026-11-23', 'ZASILKOVNA', ?, '[]', ?)`,
          )
          .bind(newId(at + n), id, partner.id, amp(255), JSON.stringify(items), JSON.stringify(tracking), at + n),
      ),
      dbOf(partner)
        .prepare(
          `INSERT INTO payouts (id, partner_id, reference, currency, period_end, status, sales, refunds, fees, fee_vat, net, entries, created_at, paid_at)
         VALUES (?, ?, '1234567890', 'CZK', ?, 'PAID', 1, 0, 0, 0, 1, 1, ?, ?)`,
        )
        .bind(`PAYOUT${id}`, partner.id, at, at, at),
      ...Array.from({ length: ENTRIES_SHOWN + 1 }, (_, n) =>
        dbOf(partner)
          .prepare(
            `INSERT INTO settlement_entries (id, partner_id, type, amount, currency, application_id, order_number, variable_symbols, created_at, payout_id)
           VALUES (?, ?, 'FEE_VAT', -123456789, 'CZK', ?, 'x', '[]', ?, ?)`,
          )
          .bind(newId(at + n), partner.id, id, at + n, `PAYOUT${id}`),
      ),
    ]);
    const events = await addEvents(id, 59);
    for (const eventId of events.slice(-50)) {
      await dbOf(partner).batch(
        Array.from({ length: 5 }, (_, n) =>
          dbOf(partner)
            .prepare(
              "INSERT INTO notification_attempts (id, event_id, attempted_at, http_status, error, duration_ms) VALUES (?, ?, ?, 500, ?, 40)",
            )
            .bind(newId(at + n), eventId, at + n, amp(800)),
        ),
      );
    }
    const res = await (await signedInBrowser(partner)).get(page(id));
    expect(res.status).toBe(200);
    expect(new TextEncoder().encode(res.html).length).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
    expect(res.text).toContain(`The latest ${SHIPMENTS_SHOWN} shipments are shown`);
    expect(res.text).toContain(`The latest ${ENTRIES_SHOWN} entries are shown`);
    expect(res.text).toContain(
      `The first 100 of 500 lines are shown; the API answers every one (GET /financing/v1/applications/${id}).`,
    );
  });

  it("is not found for another partner's application, nor for an id that does not exist", async () => {
    const { token } = await signIn();
    const foreign = await createApplication(token);
    const browser = await signedInBrowser((await signIn()).partner);
    for (const id of [foreign.id, "01J000000000000000000000000"]) {
      const res = await browser.get(page(id));
      expect(res.status).toBe(404);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(res.text).toContain("Not found");
      expect(res.html).not.toContain(foreign.id);
    }
  });

  it("shows a customer's name as text: markup in it is escaped, never run", async () => {
    const { partner, token } = await signIn();
    const body = applicationRequest();
    body.customer.fullName = "<img src=x onerror=alert(1)>";
    body.order.items[1]!.name = '"><script>alert(2)</script>';
    const created = await createApplication(token, body);
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    expect(res.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(res.html).toContain("&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(res.html).not.toMatch(/<img|<script/);
  });

  it("puts no token or secret in any of its own links or form targets", async () => {
    const { partner, token } = await signIn();
    const created = await createApplication(token);
    const res = await (await signedInBrowser(partner)).get(page(created.id));
    const links = [...res.html.matchAll(/(?:href|action)="([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(link).not.toMatch(/gateway|csrf|once|session|token|secret/i);
  });
});
