import { describe, expect, it } from "vitest";
import { shownTime } from "../../src/console/layout";
import { newId } from "../../src/ids";
import { nextCutoff } from "../../src/settlement/payout-cutoff";
import { signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { app, approved, put, shippedWithTotal } from "../support/orders";
import { closeNow } from "../support/settlement-api";
import { dbOf } from "../support/shards";

const PAGE = "/console/payouts";

/** The references the page lists, in its order. */
const listed = (html: string) =>
  [...html.matchAll(/<a class="code" href="\/console\/payouts\/[0-9A-Z]+">(\d{10})</g)].map((m) => m[1]);

describe("/console/payouts", () => {
  it("shows the open balance per currency and when the next payout closes; nothing open once paid", async () => {
    const { partner, token } = await signIn();
    const browser = await signedInBrowser(partner);
    const empty = await browser.get(PAGE);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("Nothing is open: every entry is in a payout.");
    expect(empty.text).toContain("No payouts yet.");
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    const open = await browser.get(PAGE);
    // As GET /financing/v1/balance answers it: sales 16000, fees −400, their VAT −84, net 15516.
    expect(open.text).toContain("CZK CZK 160.00 CZK 0.00 -CZK 4.00 -CZK 0.84 CZK 155.16");
    const closesAt = shownTime(nextCutoff(Date.now(), 0, "UTC"), "UTC");
    expect(open.text).toContain(`The next payout closes at ${closesAt}`);
    await closeNow(token);
    expect((await browser.get(PAGE)).text).toContain("Nothing is open: every entry is in a payout.");
  });

  it("lists the partner's payouts newest first with their totals, filtered by status and currency", async () => {
    const { partner, token } = await signIn();
    await shippedWithTotal(token, 100000);
    const [first] = await closeNow(token);
    await shippedWithTotal(token, 50000);
    const [second] = await closeNow(token);
    await dbOf(partner)
      .prepare("UPDATE payouts SET status = 'PENDING', paid_at = NULL WHERE id = ?")
      .bind(second!.id)
      .run();
    const other = await signIn();
    await shippedWithTotal(other.token, 100000);
    const [foreign] = await closeNow(other.token);
    const browser = await signedInBrowser(partner);

    const all = await browser.get(PAGE);
    expect(all.status).toBe(200);
    expect(listed(all.html)).toEqual([second!.reference, first!.reference]);
    expect(all.html).not.toContain(foreign!.reference);
    // Reference, status, period end, net, sales, refunds, fees, VAT on fees, entries, paid.
    expect(all.text).toContain(
      `${first!.reference} PAID ${first!.periodEnd.slice(0, 16).replace("T", " ")} CZK 969.75 CZK 1,000.00 CZK 0.00 -CZK 25.00 -CZK 5.25 3 ${first!.paidAt!.slice(0, 16).replace("T", " ")}`,
    );
    expect(all.text).toContain(`${second!.reference} PENDING`);
    expect(all.html).toContain(`href="/console/payouts/${first!.id}"`);

    expect(listed((await browser.get(`${PAGE}?status=PENDING`)).html)).toEqual([second!.reference]);
    expect(listed((await browser.get(`${PAGE}?status=PAID&currency=czk`)).html)).toEqual([first!.reference]);
    const euros = await browser.get(`${PAGE}?currency=EUR`);
    expect(euros.status).toBe(200);
    expect(euros.text).toContain("No payout matches.");
  });

  it("says in words why a filter cannot be read, with 400", async () => {
    const { partner } = await signIn();
    const res = await (await signedInBrowser(partner)).get(`${PAGE}?status=LOST`);
    expect(res.status).toBe(400);
    expect(res.text).toContain("The payouts could not be filtered");
    expect(res.text).toContain("LOST");
  });

  it("pages 25 payouts at a time, keeping the filter", async () => {
    const { partner } = await signIn();
    const at = Date.now();
    // 30 closed payouts, planted: the list reads payouts only.
    await dbOf(partner).batch(
      Array.from({ length: 30 }, (_, n) =>
        dbOf(partner)
          .prepare(
            `INSERT INTO payouts (id, partner_id, reference, currency, period_end, status, sales, refunds, fees, fee_vat, net, entries, created_at, paid_at)
           VALUES (?, ?, ?, 'CZK', ?, 'PAID', 100, 0, 0, 0, 100, 1, ?, ?)`,
          )
          .bind(newId(at + n * 1000), partner.id, String(9000000000 + n), at + n * 1000, at + n * 1000, at + n * 1000),
      ),
    );
    const browser = await signedInBrowser(partner);
    const first = await browser.get(`${PAGE}?status=PAID`);
    expect(listed(first.html)).toEqual(Array.from({ length: 25 }, (_, n) => String(9000000029 - n)));
    const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.html)![1]!.replaceAll("&amp;", "&");
    expect(older).toMatch(/^\/console\/payouts\?status=PAID&after=[0-9A-Z]+$/);
    const second = await browser.get(older);
    expect(listed(second.html)).toEqual(Array.from({ length: 5 }, (_, n) => String(9000000004 - n)));
    expect(second.html).toContain('rel="prev">Newer</a>');
  });
});
