import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isPayoutReference, newPayoutReference } from "../../src/domain/payout-reference";
import { balanceOf, type Payout, planPayout, planPayoutMark, totalsOf } from "../../src/domain/payouts";
import type { SettlementEntry } from "../../src/domain/settlement-entries";
import { lastCutoff } from "../../src/settlement/payout-cutoff";
import { context } from "../support/domain";
import { scenario } from "../support/order-sequences";
import {
  type Account,
  checkAccount,
  financingType,
  openAccount,
  operate,
  partnerTerms,
} from "../support/settlement-sequences";

const HOUR = 3_600_000;
const PARTNERS = ["partner-1", "partner-2"];

/** What happens next: an application's next operation, time running, a closing at a cutoff, or a mark. */
type Step =
  | { kind: "operate"; app: number }
  | { kind: "wait"; hours: number }
  | { kind: "close"; hour: number; zone: string }
  | { kind: "mark"; pick: number; status: "PAID" | "FAILED" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.nat(2).map((app): Step => ({ kind: "operate", app })) },
  { weight: 2, arbitrary: fc.constantFrom(1, 6, 25).map((hours): Step => ({ kind: "wait", hours })) },
  {
    weight: 2,
    arbitrary: fc
      .record({ hour: fc.integer({ min: 0, max: 23 }), zone: fc.constantFrom("UTC", "Europe/Prague") })
      .map((c): Step => ({ kind: "close", ...c })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ pick: fc.nat(5), status: fc.constantFrom<"PAID" | "FAILED">("PAID", "FAILED") })
      .map((m): Step => ({ kind: "mark", ...m })),
  },
);

const world = fc.record({
  terms: fc.tuple(partnerTerms, partnerTerms),
  apps: fc.array(fc.record({ scenario: scenario(10, true), partner: fc.nat(1), type: financingType }), {
    minLength: 1,
    maxLength: 3,
  }),
  schedule: fc.array(step, { minLength: 5, maxLength: 50 }),
});

interface Closed {
  payout: Payout;
  /** What it took: kept apart and never changed, as the payout's report reads it. */
  entryIds: string[];
}

/** The service's books in memory: as the database will hold them, written as the domain plans. */
class Books {
  readonly closed: Closed[] = [];
  private references = 0;

  constructor(readonly accounts: Account[]) {}

  entries(partnerId?: string): SettlementEntry[] {
    return this.accounts.flatMap((a) => a.entries).filter((e) => partnerId === undefined || e.partnerId === partnerId);
  }

  /** Closes a payout for the partner at `periodEnd`; the outcome's code when nothing is paid. */
  close(partnerId: string, periodEnd: number, ctx: { at: number; newId: () => string }): Closed | "NOTHING_TO_PAY" {
    const reference = newPayoutReference(() => Math.imul(++this.references, 2_654_435_761) >>> 0);
    const result = planPayout(this.entries(), { partnerId, currency: "CZK", periodEnd, reference }, ctx);
    if (!result.ok) {
      expect(result.problems.map((p) => p.code)).toEqual(["NOTHING_TO_PAY"]);
      const waiting = this.entries(partnerId).filter((e) => e.payoutId === null && e.createdAt < periodEnd);
      expect(waiting.reduce((sum, e) => sum + e.amount, 0)).toBeLessThanOrEqual(0);
      return "NOTHING_TO_PAY";
    }
    const taken = new Set(result.value.entryIds);
    for (const e of this.entries()) {
      if (!taken.has(e.id)) continue;
      expect(e.payoutId).toBeNull(); // the guard of the write: only open entries are taken
      e.payoutId = result.value.payout.id;
    }
    this.closed.push(result.value);
    return result.value;
  }

  mark(closed: Closed, status: "PAID" | "FAILED", at: number): void {
    const marked = planPayoutMark(closed.payout, status, { at });
    if (!marked.ok) throw new Error(JSON.stringify(marked.problems));
    closed.payout = marked.value;
    // A FAILED payout releases its entries: open again, for the next payout.
    if (status === "FAILED") for (const e of this.entries()) if (e.payoutId === closed.payout.id) e.payoutId = null;
  }

  /**
   * Every entry in at most one PENDING or PAID payout, which its payoutId names; each payout's totals
   * those of what it took, positive, of entries of its partner and currency created before its cutoff;
   * and per partner, the ledger's sum = paid + pending + the open balance.
   */
  check(): void {
    const byId = new Map(this.entries().map((e) => [e.id, e]));
    const holders = new Map<string, string[]>();
    for (const { payout, entryIds } of this.closed) {
      const taken = entryIds.map((id) => byId.get(id)!);
      expect(payout.totals).toEqual(totalsOf(taken));
      expect(payout.totals.net).toBe(taken.reduce((sum, e) => sum + e.amount, 0));
      expect(payout.totals.net).toBeGreaterThan(0);
      expect(payout.entries).toBe(taken.length);
      expect(isPayoutReference(payout.reference)).toBe(true);
      for (const e of taken) {
        expect([e.partnerId, e.currency]).toEqual([payout.partnerId, payout.currency]);
        expect(e.createdAt).toBeLessThan(payout.periodEnd);
        if (payout.status !== "FAILED") holders.set(e.id, [...(holders.get(e.id) ?? []), payout.id]);
      }
    }
    for (const e of byId.values()) {
      const holding = holders.get(e.id) ?? [];
      expect(holding.length).toBeLessThanOrEqual(1);
      expect(e.payoutId).toBe(holding[0] ?? null);
    }
    for (const partnerId of PARTNERS) {
      const ledger = this.entries(partnerId).reduce((sum, e) => sum + e.amount, 0);
      const net = (status: Payout["status"]) =>
        this.closed
          .filter((c) => c.payout.partnerId === partnerId && c.payout.status === status)
          .reduce((sum, c) => sum + c.payout.totals.net, 0);
      const open = balanceOf(this.entries(partnerId).filter((e) => e.payoutId === null));
      expect(ledger).toBe(net("PAID") + net("PENDING") + (open[0]?.net ?? 0));
    }
  }
}

describe("payouts over random operation sequences, closings at random cutoffs, and marks", () => {
  it("hold every entry in at most one live payout, pay what they hold, and pay a failed payout's entries once later", () => {
    const reached = new Set<string>();
    fc.assert(
      fc.property(world, ({ terms, apps, schedule }) => {
        const ctx = context();
        const accounts = apps.map(({ scenario, partner, type }, i) =>
          openAccount(
            scenario.items,
            scenario.start,
            ctx,
            { id: `app-${i + 1}`, partnerId: PARTNERS[partner]!, type },
            terms[partner]!,
          ),
        );
        const books = new Books(accounts);
        const next = apps.map(() => 0);
        for (const s of schedule) {
          if (s.kind === "operate") {
            const i = s.app % apps.length;
            const op = apps[i]!.scenario.operations[next[i]!++];
            if (op?.kind === "wait") ctx.at += Math.round(op.days * 24 * HOUR);
            else if (op && operate(accounts[i]!, op, ctx).accepted) checkAccount(accounts[i]!);
          } else if (s.kind === "wait") {
            ctx.at += s.hours * HOUR;
          } else if (s.kind === "close") {
            for (const partnerId of PARTNERS) {
              const closed = books.close(partnerId, lastCutoff(ctx.at, s.hour, s.zone), ctx);
              reached.add(closed === "NOTHING_TO_PAY" ? closed : closed.payout.totals.refunds < 0 ? "refunds" : "paid");
            }
          } else {
            const pending = books.closed.filter((c) => c.payout.status === "PENDING");
            const chosen = pending[s.pick % Math.max(1, pending.length)];
            if (chosen) books.mark(chosen, s.status, ctx.at);
          }
          books.check();
        }
        // At last everything open is closed and paid: each entry of a failed payout is paid exactly
        // once, by a later payout, or still waits because what is open adds up to nothing to pay.
        ctx.at += HOUR;
        for (const partnerId of PARTNERS) {
          const closed = books.close(partnerId, ctx.at, ctx);
          if (closed !== "NOTHING_TO_PAY") books.mark(closed, "PAID", ctx.at);
        }
        books.check();
        const byId = new Map(books.entries().map((e) => [e.id, e]));
        for (const failed of books.closed.filter((c) => c.payout.status === "FAILED")) {
          for (const id of failed.entryIds) {
            const paidBy = books.closed.filter((c) => c.payout.status === "PAID" && c.entryIds.includes(id));
            expect(paidBy.length).toBeLessThanOrEqual(1);
            if (paidBy.length === 1) {
              expect(paidBy[0]!.payout.createdAt).toBeGreaterThanOrEqual(failed.payout.createdAt);
              reached.add("failed, then paid");
            } else {
              expect(byId.get(id)!.payoutId).toBeNull();
              const open = books.entries(byId.get(id)!.partnerId).filter((e) => e.payoutId === null);
              expect(open.reduce((sum, e) => sum + e.amount, 0)).toBeLessThanOrEqual(0);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
    expect([...reached].sort()).toEqual(["NOTHING_TO_PAY", "failed, then paid", "paid", "refunds"]);
  });
});
