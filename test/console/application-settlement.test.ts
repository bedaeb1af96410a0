import { describe, expect, it } from "vitest";
import { ENTRIES_SHOWN, SHIPMENTS_SHOWN } from "../../src/console/application-settlement";
import { newId } from "../../src/ids";
import { call, signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { app, approved, put } from "../support/orders";
import { closeNow } from "../support/settlement-api";
import { dbOf } from "../support/shards";

const page = (id: string) => `/console/applications/${id}`;
const today = () => new Date().toISOString().slice(0, 10);

/** `count` shipments of the application, a second apart, planted: their references, oldest first. */
async function plantShipments(applicationId: string, partnerId: string, count: number): Promise<string[]> {
  const db = await dbOf(partnerId);
  const at = Date.now();
  const references = Array.from({ length: count }, (_, n) => `PLANTED-${n}`);
  await db.batch(
    references.map((reference, n) =>
      db
        .prepare(
          `INSERT INTO shipments (id, application_id, partner_id, reference, items, total_amount, currency, sent_date, tracking, line_ids, created_at)
         VALUES (?, ?, ?, ?, '[]', 0, 'CZK', '2026-11-23', '[]', '[]', ?)`,
        )
        .bind(newId(at + n * 1000), applicationId, partnerId, reference, at + n * 1000),
    ),
  );
  return references;
}

describe("the application page's shipments and settlement", () => {
  it("shows each shipment with its items, total and tracking, and each entry with the payout holding it", async () => {
    const { partner, token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }], reference: "FV-1" });
    const [payout] = await closeNow(token);
    await put(token, `${app(id)}/order/send`, { deliveryTrackingNumber: "PPL-77" });
    const browser = await signedInBrowser(partner);
    const res = await browser.get(page(id));
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      `Shipments Sent ${today()}: FV-1 Reference FV-1 Carrier PPL Items 1 × Guide to typing Total CZK 160.00 No tracking yet. Add tracking`,
    );
    expect(res.text).toContain(
      `Sent ${today()} Reference none Carrier PPL Items 2 × Mechanical keyboard, 1 × Delivery Total CZK 1,840.00 Tracking number Carrier Added PPL-77 PPL ${today()}`,
    );
    // The book's sale, fee and fee VAT in the paid payout; the rest open.
    const settlement = res.text.slice(res.text.indexOf("Settlement What this application adds"));
    expect(settlement).toMatch(
      new RegExp(
        [
          `Sale SALE CZK 160\\.00 ${payout!.reference} PAID`,
          `Fee FEE -CZK 4\\.00 ${payout!.reference} PAID`,
          `VAT on fee FEE_VAT -CZK 0\\.84 ${payout!.reference} PAID`,
          "Sale SALE CZK 1,520\\.00 open",
          "Fee FEE -CZK 38\\.00 open",
          "VAT on fee FEE_VAT -CZK 7\\.98 open",
        ].join(" .*"),
      ),
    );
    expect(res.html).toContain(`<a class="code" href="/console/payouts/${payout!.id}">${payout!.reference}</a>`);
    // A refund is an entry too, open until the next payout.
    await call("POST", `${app(id)}/refunds`, { token, body: { totalPrice: { amount: 10000, currency: "CZK" } } });
    expect((await browser.get(page(id))).text).toMatch(/Refund REFUND -CZK 100\.00 open/);
  });

  it("says so when nothing was sent yet", async () => {
    const { partner, token } = await signIn();
    const id = await approved(token);
    const res = await (await signedInBrowser(partner)).get(page(id));
    expect(res.text).toContain(
      "Nothing was sent yet: each send (or a delivery of goods not sent before) is a shipment.",
    );
    expect(res.text).toContain("No entries yet: they come with goods sent, and with refunds.");
  });

  it(`shows the latest ${SHIPMENTS_SHOWN} shipments and ${ENTRIES_SHOWN} entries in the order they came, and says where the rest are`, async () => {
    const { partner, token } = await signIn();
    const id = await approved(token);
    const references = await plantShipments(id, partner.id, SHIPMENTS_SHOWN + 2);
    const at = Date.now();
    await dbOf(partner).batch(
      Array.from({ length: ENTRIES_SHOWN + 3 }, (_, n) =>
        dbOf(partner)
          .prepare(
            `INSERT INTO settlement_entries (id, partner_id, type, amount, currency, application_id, order_number, variable_symbols, created_at)
           VALUES (?, ?, 'REFUND', ?, 'CZK', ?, 'planted', '[]', ?)`,
          )
          .bind(newId(at + n * 1000), partner.id, -(n + 1), id, at + n * 1000),
      ),
    );
    const res = await (await signedInBrowser(partner)).get(page(id));
    expect([...res.text.matchAll(/Sent 2026-11-23: (PLANTED-\d)/g)].map((m) => m[1])).toEqual(
      references.slice(-SHIPMENTS_SHOWN),
    );
    expect(res.text).toContain(
      `The latest ${SHIPMENTS_SHOWN} shipments are shown; the API lists every one (GET /financing/v1/applications/${id}/shipments).`,
    );
    expect([...res.text.matchAll(/Refund REFUND -CZK 0\.(\d\d)/g)].map((m) => Number(m[1]))).toEqual(
      Array.from({ length: ENTRIES_SHOWN }, (_, n) => n + 4),
    );
    expect(res.text).toContain(`The latest ${ENTRIES_SHOWN} entries are shown; each payout lists all of its own.`);
  });

  it("shows another partner's entries nowhere, even planted under this application", async () => {
    const { partner, token } = await signIn();
    const id = await approved(token);
    // On the partner's shard, where a planted row could be read at all.
    const other = await signIn({ shard: partner.shard });
    await dbOf(partner)
      .prepare(
        `INSERT INTO settlement_entries (id, partner_id, type, amount, currency, application_id, order_number, variable_symbols, created_at)
       VALUES (?, ?, 'REFUND', -4242, 'CZK', ?, 'planted', '[]', ?)`,
      )
      .bind(newId(), other.partner.id, id, Date.now())
      .run();
    const res = await (await signedInBrowser(partner)).get(page(id));
    expect(res.text).not.toContain("42.42");
    expect(res.text).toContain("No entries yet");
  });
});
