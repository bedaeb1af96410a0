/**
 * Payouts (CONTRACT 6b): once a day, per partner and currency, the open settlement entries created
 * before the cutoff are closed into one bank transfer. Pure: no HTTP, no SQL.
 *
 * How entries are held: an entry's `payoutId` names the PENDING or PAID payout holding it, null while it
 * is open. Closing a payout sets it on the entries it takes (only where it is still null, so two racing
 * closings cannot both take one). Marking a payout FAILED sets it back to null on that payout's entries,
 * in the same batch: they are open again and go to the next payout. The payout itself, its totals and
 * the list of what it took (kept apart, append-only) never change, FAILED ones included, so its report
 * reads the same forever. So an entry is open exactly when its payoutId is null.
 */
import { ok, problem, type Result, refused } from "./result";
import type { EntryType, SettlementEntry } from "./settlement-entries";

export const PAYOUT_STATUSES = ["PENDING", "PAID", "FAILED"] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Sums of entries by type, signed as the entries are (refunds and fees negative), and their sum. */
export interface Totals {
  sales: number;
  refunds: number;
  fees: number;
  feeVat: number;
  net: number;
}

export interface Payout {
  id: string;
  partnerId: string;
  /** 10 digits, unique: the variable symbol of the bank transfer (payout-reference.ts). */
  reference: string;
  currency: string;
  /** The cutoff: the payout holds the entries created before it. */
  periodEnd: number;
  status: PayoutStatus;
  totals: Totals;
  /** How many entries it holds. */
  entries: number;
  createdAt: number;
  paidAt: number | null;
}

type Amounts = Pick<SettlementEntry, "type" | "amount">;

const TOTAL_OF: Record<EntryType, Exclude<keyof Totals, "net">> = {
  SALE: "sales",
  REFUND: "refunds",
  FEE: "fees",
  FEE_VAT: "feeVat",
};

export function totalsOf(entries: readonly Amounts[]): Totals {
  const totals: Totals = { sales: 0, refunds: 0, fees: 0, feeVat: 0, net: 0 };
  for (const { type, amount } of entries) {
    totals[TOTAL_OF[type]] += amount;
    totals.net += amount;
  }
  return totals;
}

export interface PayoutRequest {
  partnerId: string;
  currency: string;
  /** The cutoff (payout-cutoff.ts): entries created before it are taken. */
  periodEnd: number;
  reference: string;
}

/**
 * The payout of every open entry of the partner and currency created before `periodEnd`, and the ids of
 * the entries it takes; or NOTHING_TO_PAY when they add up to zero or less (`planClosing`).
 */
export function planPayout(
  entries: readonly SettlementEntry[],
  request: PayoutRequest,
  ctx: { at: number; newId: () => string },
): Result<{ payout: Payout; entryIds: string[] }> {
  const taken = entries.filter(
    (e) =>
      e.payoutId === null &&
      e.partnerId === request.partnerId &&
      e.currency === request.currency &&
      e.createdAt < request.periodEnd,
  );
  const payout = planClosing({ totals: totalsOf(taken), count: taken.length }, request, ctx);
  return payout.ok ? ok({ payout: payout.value, entryIds: taken.map((e) => e.id) }) : payout;
}

/**
 * The payout of open entries that add up to `open` (their totals and how many: what the database sums
 * without reading them one by one), or NOTHING_TO_PAY when they add up to zero or less (refunds and
 * fees beyond the sales), and then they wait, with what comes later, for a payout that pays something.
 */
export function planClosing(
  open: { totals: Totals; count: number },
  request: PayoutRequest,
  ctx: { at: number; newId: () => string },
): Result<Payout> {
  const { totals, count } = open;
  if (totals.net <= 0) {
    return refused(
      problem(
        "NOTHING_TO_PAY",
        `the ${count} open entries in ${request.currency} add up to ${totals.net}: they wait for the next payout`,
      ),
    );
  }
  return ok({
    id: ctx.newId(),
    partnerId: request.partnerId,
    reference: request.reference,
    currency: request.currency,
    periodEnd: request.periodEnd,
    status: "PENDING",
    totals,
    entries: count,
    createdAt: ctx.at,
    paidAt: null,
  });
}

/**
 * The payout marked PAID (the transfer arrived) or FAILED (the bank returned it; its entries are
 * released, see above). Only a PENDING payout is marked: a PAID or FAILED one is final.
 */
export function planPayoutMark(payout: Payout, status: "PAID" | "FAILED", ctx: { at: number }): Result<Payout> {
  if (payout.status !== "PENDING") {
    return refused(problem("PAYOUT_NOT_PENDING", `the payout is ${payout.status} already`, "status"));
  }
  return ok({ ...payout, status, paidAt: status === "PAID" ? ctx.at : null });
}

/** What is not yet in a payout, per currency (in currency order), from the entries or their sums by type. */
export function balanceOf(
  openEntries: readonly Pick<SettlementEntry, "currency" | "type" | "amount">[],
): ({ currency: string } & Totals)[] {
  const currencies = [...new Set(openEntries.map((e) => e.currency))].sort();
  return currencies.map((currency) => ({
    currency,
    ...totalsOf(openEntries.filter((e) => e.currency === currency)),
  }));
}

export interface Payment {
  paymentId: string;
  paidAt: number;
  applicationId: string;
  value: { amount: number; currency: string };
}

/**
 * Skip Pay's payments of an application: each PAID payout holding its entries, with what they add up
 * to in it (in paymentId order). A PENDING payout is no payment yet.
 */
export function paymentsOf(
  applicationId: string,
  entries: readonly SettlementEntry[],
  payouts: readonly Payout[],
): Payment[] {
  return payouts
    .filter((p) => p.status === "PAID" && p.paidAt !== null)
    .map((p) => ({ payout: p, held: entries.filter((e) => e.applicationId === applicationId && e.payoutId === p.id) }))
    .filter(({ held }) => held.length > 0)
    .map(({ payout, held }) => ({
      paymentId: payout.id,
      paidAt: payout.paidAt!,
      applicationId,
      value: { amount: held.reduce((sum, e) => sum + e.amount, 0), currency: payout.currency },
    }))
    .sort((a, b) => (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0));
}
