/** Plain-data applications for tests of src/domain: no database, no HTTP. */

import { linesBytes } from "../../src/domain/application-size";
import type { DeadlinePolicy } from "../../src/domain/deadlines";
import { newLines, type OrderItem } from "../../src/domain/order-lines";
import { DEFAULT_TERMS } from "../../src/domain/partner-terms";
import type { ApplicationFacts, Current, Plan, PlanContext } from "../../src/domain/plan";
import { applyPlan } from "../../src/domain/plan";
import type { Result } from "../../src/domain/result";

/** An item of `amount` (negative for a DISCOUNT), VAT 21 % rounded. */
export function item(
  code: string,
  amount: number,
  quantity = 1,
  type = amount < 0 ? "DISCOUNT" : "PHYSICAL",
): OrderItem {
  return {
    code,
    name: code,
    type,
    quantity,
    totalPrice: { amount },
    totalVat: { vatRate: 21, amount: Math.round((amount * 21) / 121) },
  };
}

const DAY = 86_400_000;

/** The defaults of the Worker's variables: 72 hours, 28 days, 180 days, 7 days. */
export const DEADLINES: DeadlinePolicy = {
  customerDecisionMs: 3 * DAY,
  authorizationMs: 28 * DAY,
  authorizationMaxMs: 180 * DAY,
  reminderMs: 7 * DAY,
};

/** Ids that tell their order: a plan's ids in a test are predictable. */
export function context(at = Date.UTC(2026, 10, 23, 12)): PlanContext {
  let n = 0;
  return {
    at,
    // The service's date in UTC; a test that moves `at` moves it too.
    get today() {
      return new Date(this.at).toISOString().slice(0, 10);
    },
    newId: () => `id-${String(++n).padStart(4, "0")}`,
    deadlines: DEADLINES,
  };
}

/** The EXTENDED start: approved this long ago, its authorization running for this long still. */
export const EXTENDED_AGO = 170 * DAY;
export const EXTENDED_LEFT = 5 * DAY;

/** A manual review's length in the sandbox (SANDBOX_REVIEW_SECONDS' default). */
export const REVIEW_MS = 600_000;

/**
 * An application with the items' lines: approved at their total (READY), approved 170 days ago and
 * extended since to 5 days from now, near its cap (EXTENDED), awaiting the customer (PROCESSING), or
 * under a manual review that approves (REVIEW), with the deadlines each has.
 */
export function application(
  items: readonly OrderItem[],
  start: "PROCESSING" | "READY" | "REVIEW" | "EXTENDED" = "READY",
  ctx: PlanContext = context(),
): Current {
  const lines = newLines(items, ctx.newId);
  const total = lines.reduce((sum, l) => sum + l.totalPriceAmount, 0);
  const state = start === "READY" || start === "EXTENDED" ? "READY" : "PROCESSING";
  const review = start === "REVIEW";
  const extended = start === "EXTENDED";
  const facts: ApplicationFacts = {
    id: "app-1",
    type: "DEFERRED_PAYMENT",
    state,
    stateReason:
      state === "READY" ? "READY_TO_SHIP" : review ? "PROCESSING_MANUAL_REVIEW" : "PROCESSING_REDIRECT_NEEDED",
    currency: "CZK",
    approvedAmount: state === "READY" ? total : null,
    refundedAmount: 0,
    agreementTermsAndConditions: true,
    customerEmail: "jana@example.com",
    eventSequence: 1,
    version: 0,
    decidedAt: state === "READY" ? ctx.at - (extended ? EXTENDED_AGO : 0) : null,
    expiresAt: review
      ? null
      : extended
        ? ctx.at + EXTENDED_LEFT
        : ctx.at + (state === "READY" ? DEADLINES.authorizationMs : DEADLINES.customerDecisionMs),
    reminderAt: state === "READY" && !extended ? ctx.at + DEADLINES.authorizationMs - DEADLINES.reminderMs : null,
    reviewAt: review ? ctx.at + REVIEW_MS : null,
    reviewOutcome: review ? "APPROVE" : null,
    contentBytes: linesBytes(lines),
    idleSince: ctx.at,
  };
  return {
    application: facts,
    lines,
    documents: [],
    settlement: {
      application: {
        id: facts.id,
        partnerId: "partner-1",
        type: "DEFERRED_PAYMENT",
        currency: facts.currency,
        orderNumber: `ORDER-${facts.id}`,
        variableSymbols: ["2026001"],
      },
      deliveryCarrier: { carrierId: "PPL" },
      terms: DEFAULT_TERMS,
      shipments: [],
    },
  };
}

/** The application after a plan that must have been accepted. */
export function applied(current: Current, result: Result<Plan>): Current {
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.problems)}`);
  return applyPlan(current, result.value);
}

/** The codes of a refusal (fails when the plan was accepted). */
export function refusal(result: Result<Plan>): string[] {
  if (result.ok) throw new Error("expected a refusal, the plan was accepted");
  return result.problems.map((p) => p.code);
}
