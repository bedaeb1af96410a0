import { describe, expect, it } from "vitest";
import { newId } from "../../src/ids";
import { call, signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { applicationRequest, createApplication, forceState } from "../support/factories";
import { app, put, shippedWithTotal } from "../support/orders";
import { closeNow } from "../support/settlement-api";
import { dbOf } from "../support/shards";

const page = (id: string) => `/console/payouts/${id}`;

describe("/console/payouts/:payoutId", () => {
  it("shows the payout's reference, status, dates, totals and entries, each with its order and shipment", async () => {
    const { partner, token } = await signIn();
    const { id, order } = await createApplication(token, applicationRequest({ orderNumber: "2026-77" }));
    await forceState(id, "READY", "READY_TO_SHIP");
    await put(token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }], reference: "FV-2026-77" });
    const [payout] = await closeNow(token);
    const res = await (await signedInBrowser(partner)).get(page(payout!.id));
    expect(res.status).toBe(200);
    expect(res.text).toContain(`Payout ${payout!.reference}`);
    expect(res.text).toContain(`Reference ${payout!.reference} (the variable symbol of the bank transfer) Status PAID`);
    expect(res.text).toContain(`Period end ${payout!.periodEnd.slice(0, 16).replace("T", " ")}`);
    expect(res.text).toContain(`Paid ${payout!.paidAt!.slice(0, 16).replace("T", " ")} Entries 3`);
    expect(res.text).toContain(
      "Sales CZK 160.00 Refunds CZK 0.00 Fees -CZK 4.00 VAT on fees -CZK 0.84 Net (the transfer) CZK 155.16",
    );
    expect(res.text).toContain(`Sale SALE CZK 160.00 ${order.number} FV-2026-77 –`);
    expect(res.text).toContain(`Fee FEE -CZK 4.00 ${order.number} FV-2026-77 –`);
    expect(res.text).toContain(`VAT on fee FEE_VAT -CZK 0.84 ${order.number} FV-2026-77 –`);
    expect(res.html).toContain(`<a href="/console/applications/${id}">2026-77</a>`);
    expect(res.html).toContain(`<a href="/console/payouts/${payout!.id}/report.csv" download="">`);
  });

  it("downloads the API's report as CSV, never stored", async () => {
    const { partner, token } = await signIn();
    await shippedWithTotal(token, 100000);
    const [payout] = await closeNow(token);
    const res = await (await signedInBrowser(partner)).get(`${page(payout!.id)}/report.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="payout-${payout!.reference}.csv"`);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const api = await call("GET", `/financing/v1/payouts/${payout!.id}/report.csv`, { token });
    expect(res.html).toBe(await api.text());
    expect(res.html.split("\r\n")).toHaveLength(1 + payout!.entries);
  });

  it("pages its entries 50 at a time, in the order entered", async () => {
    const { partner, token } = await signIn();
    const id = await shippedWithTotal(token, 100000);
    const [payout] = await closeNow(token);
    // 60 more refunds of the payout, planted: the page reads what the payout took.
    const at = Date.now();
    const ids = Array.from({ length: 60 }, (_, n) => newId(at + (n + 1) * 1000));
    await dbOf(partner).batch(
      ids.flatMap((entryId, n) => [
        dbOf(partner)
          .prepare(
            `INSERT INTO settlement_entries (id, partner_id, type, amount, currency, application_id, order_number, variable_symbols, created_at, payout_id)
           VALUES (?, ?, 'REFUND', ?, 'CZK', ?, 'planted', '[]', ?, ?)`,
          )
          .bind(entryId, partner.id, -(n + 1), id, at + (n + 1) * 1000, payout!.id),
        dbOf(partner)
          .prepare("INSERT INTO payout_entries (payout_id, entry_id) VALUES (?, ?)")
          .bind(payout!.id, entryId),
      ]),
    );
    const browser = await signedInBrowser(partner);
    const amounts = (text: string) => [...text.matchAll(/-CZK 0\.(\d\d)/g)].map((m) => Number(m[1]));
    const first = await browser.get(page(payout!.id));
    // The payout's own 3 entries, then the first 47 planted.
    expect(amounts(first.text)).toEqual(Array.from({ length: 47 }, (_, n) => n + 1));
    const later = /<a href="([^"]+)" rel="next">Later<\/a>/.exec(first.html)![1]!;
    const second = await browser.get(later);
    expect(second.status).toBe(200);
    expect(amounts(second.text)).toEqual(Array.from({ length: 13 }, (_, n) => n + 48));
    expect(second.html).toContain('rel="prev">Earlier</a>');
    expect(second.html).not.toContain('rel="next"');
  });

  it("is the console's not-found page for another partner's payout and its report, and for no payout", async () => {
    const { token } = await signIn();
    await shippedWithTotal(token, 100000);
    const [payout] = await closeNow(token);
    const stranger = await signedInBrowser((await signIn()).partner);
    for (const path of [page(payout!.id), `${page(payout!.id)}/report.csv`, page("01J000000000000000000000000")]) {
      const res = await stranger.get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      expect(res.text).toContain("Not found");
      expect(res.html).not.toContain(payout!.reference);
    }
  });
});
