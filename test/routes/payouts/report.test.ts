import Papa from "papaparse";
import { describe, expect, it } from "vitest";
import { call, signIn } from "../../support/api";
import { applicationRequest, createApplication, forceState } from "../../support/factories";
import { app, put } from "../../support/orders";
import { closeNow, entriesOf } from "../../support/settlement-api";

describe("GET /financing/v1/payouts/{payoutId}/report.csv", () => {
  it("is CSV a standard parser reads: a header, one row per entry, amounts adding up to the payout", async () => {
    const { token } = await signIn();
    // Several applications, one with an order number a spreadsheet would run as a formula.
    for (const orderNumber of ["=SUM(A1)", "2026-2", "2026,3"]) {
      const { id } = await createApplication(token, applicationRequest({ orderNumber }));
      await forceState(id, "READY", "READY_TO_SHIP");
      await put(token, `${app(id)}/order/send`, { reference: `INV "${orderNumber}"` });
    }
    const [payout] = await closeNow(token);
    const res = await call("GET", `/financing/v1/payouts/${payout!.id}/report.csv`, { token });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="payout-${payout!.reference}.csv"`);
    const text = await res.text();
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: false });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data).toHaveLength(payout!.entries);
    expect(parsed.data.reduce((sum, row) => sum + Number(row.amount), 0)).toBe(payout!.totals.net);
    expect(parsed.data.map((row) => row.entryId)).toEqual((await entriesOf(token, payout!.id)).map((e) => e.id));
    expect(new Set(parsed.data.map((row) => row.payoutReference))).toEqual(new Set([payout!.reference]));
    expect(text.includes("\r\n")).toBe(true);
    // A spreadsheet would run it: it is written as text, and read back as the partner sent it but for the quote.
    expect(parsed.data.map((row) => row.orderNumber)).toContain("'=SUM(A1)");
    expect(parsed.data.map((row) => row.shipmentReference)).toContain('INV "2026,3"');
    const other = await signIn();
    expect((await call("GET", `/financing/v1/payouts/${payout!.id}/report.csv`, { token: other.token })).status).toBe(
      404,
    );
  });
});
