/**
 * Payouts closed by the cron at the day's cutoff (CONTRACT 6b), marked by the operator as the command
 * does (one SQL statement: scripts/payouts-mark.ts), and the applications told when paid.
 */
import { describe, expect, it } from "vitest";
import { MARK_PAYOUT } from "../../src/db/payout-mark";
import { call, json, signIn } from "../support/api";
import { countRows } from "../support/factories";
import { app, put } from "../support/orders";
import { entriesOf, type PayoutView } from "../support/settlement-api";
import { dbHolding } from "../support/shards";
import { at, confirmed, cron, DAY, events, HOUR, useClock } from "../support/time";

useClock();

/** The day after T0, five past midnight (UTC, the tests' service zone): just after the cutoff. */
const NEXT_CUTOFF = Date.parse("2027-03-02T00:00:00Z");

const payouts = async (token: string) =>
  (await json<{ data: PayoutView[] }>(await call("GET", "/financing/v1/payouts", { token }))).data;

async function mark(payoutId: string, status: "PAID" | "FAILED", paidAt: number | null) {
  return (await dbHolding("payouts", payoutId)).prepare(MARK_PAYOUT).bind(status, paidAt, payoutId).run();
}

describe("the daily closing", () => {
  it("closes at the cutoff a PENDING payout of what was entered before it, once; paid, the application is told", async () => {
    const { partner, token: first } = await signIn();
    const { id } = await confirmed(first);
    await put(first, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });

    // Before the cutoff nothing closes; entered after the cutoff, nothing is taken.
    let token = await at(NEXT_CUTOFF - 1000, partner);
    await cron();
    expect(await payouts(token)).toEqual([]);
    token = await at(NEXT_CUTOFF + 5 * 60_000, partner);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "SHIP" }] });
    await cron();
    const [payout, ...more] = await payouts(token);
    expect(more).toEqual([]);
    expect(payout).toMatchObject({
      status: "PENDING",
      periodEnd: "2027-03-02T00:00:00+00:00",
      totals: { sales: 16000, fees: -400, feeVat: -84, refunds: 0, net: 15516 },
      entries: 3,
    });
    // A later run of the same day closes nothing more: the partner was visited at this cutoff.
    await at(NEXT_CUTOFF + HOUR, partner);
    await cron();
    expect(await payouts(token)).toHaveLength(1);
    const told = ["PROCESSING_REDIRECT_NEEDED", "READY_TO_SHIP", "READY_SHIPPED"];
    expect((await events(id)).map((e) => e.stateReason)).toEqual(told);

    // The operator marks it PAID: the next run tells the application, once.
    expect((await mark(payout!.id, "PAID", NEXT_CUTOFF + 2 * HOUR)).meta.changes).toBe(1);
    expect((await mark(payout!.id, "FAILED", null)).meta.changes).toBe(0);
    await at(NEXT_CUTOFF + 2 * HOUR, partner);
    await cron();
    await cron();
    expect((await events(id)).map((e) => e.stateReason)).toEqual([...told, "READY_PAID"]);
    expect(await countRows("payouts", "id = ? AND applications_told_at IS NOT NULL", payout!.id)).toBe(1);

    // The shipping sent after the cutoff goes in the next day's payout.
    token = await at(NEXT_CUTOFF + DAY + 60_000, partner);
    await cron();
    expect((await payouts(token)).map((p) => p.totals.sales)).toEqual([16000, 32000]);
  });

  it("gives a FAILED payout's entries to the next payout, and still reports what it held", async () => {
    const { partner, token: first } = await signIn();
    const { id } = await confirmed(first);
    await put(first, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    let token = await at(NEXT_CUTOFF + 60_000, partner);
    await cron();
    const [failed] = await payouts(token);
    await mark(failed!.id, "FAILED", null);
    expect(await countRows("settlement_entries", "application_id = ? AND payout_id IS NULL", id)).toBe(3);

    token = await at(NEXT_CUTOFF + DAY + 60_000, partner);
    await cron();
    const [, next] = await payouts(token);
    expect(next).toMatchObject({ status: "PENDING", totals: failed!.totals, entries: 3 });
    expect((await entriesOf(token, failed!.id)).map((e) => e.id)).toEqual(
      (await entriesOf(token, next!.id)).map((e) => e.id),
    );
    expect((await entriesOf(token, next!.id)).every((e) => e.payoutId === next!.id)).toBe(true);
    // FAILED is final, and a failed payout tells no application it was paid.
    expect((await events(id)).map((e) => e.stateReason)).not.toContain("READY_PAID");
  });

  it("passes a partner whose entries add up to nothing positive, visited once a cutoff, so it holds up no one", async () => {
    const waiting = await signIn();
    const { id } = await confirmed(waiting.token);
    await put(waiting.token, `${app(id)}/order/send`, { items: [{ code: "BK-7" }] });
    const refund = { totalPrice: { amount: 16000, currency: "CZK" } };
    await call("POST", `${app(id)}/refunds`, { token: waiting.token, body: refund });
    const paying = await signIn();
    const { id: paid } = await confirmed(paying.token);
    await put(paying.token, `${app(paid)}/order/send`, { items: [{ code: "BK-7" }] });
    const token = await at(NEXT_CUTOFF + 60_000, paying.partner);
    await cron();
    expect(await payouts(token)).toHaveLength(1);
    expect(await countRows("payouts", "partner_id = ?", waiting.partner.id)).toBe(0);
    expect(await countRows("partners", "id = ? AND payouts_closed_until = ?", waiting.partner.id, NEXT_CUTOFF)).toBe(1);
    expect(await countRows("settlement_entries", "application_id = ? AND payout_id IS NULL", id)).toBe(4);
  });
});
