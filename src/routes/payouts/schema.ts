/** Schemas of payouts, their entries, the balance and an application's payments (CONTRACT 6b). */
import { PageQuery } from "../../collections/query";
import { PAYOUT_STATUSES } from "../../domain/payouts";
import { ENTRY_TYPES } from "../../domain/settlement-entries";
import { schema, z } from "../../lazy-schema";
import { DateOutput, DateTimeOutput, Money } from "../applications/schema";

const minor = (description: string) =>
  z
    .number()
    .int()
    .openapi({ description: `${description}, in minor units` });

/** Sums of entries by type, signed as the entries are: refunds and fees are negative, `net` their sum. */
const totalsShape = () => ({
  sales: minor("Σ SALE"),
  refunds: minor("Σ REFUND (negative)"),
  fees: minor("Σ FEE (negative)"),
  feeVat: minor("Σ FEE_VAT (negative)"),
  net: minor("sales + refunds + fees + feeVat: what is transferred"),
});

/** The payouts list's query: a page's, with its sorts and filters (src/collections/settlement.ts). */
export const PayoutsQuery = schema(() =>
  PageQuery().extend({
    sort: PageQuery().shape.sort.openapi({
      description: "Comma-separated attributes, `-` for descending: id (the order they closed), createdAt.",
      example: "-createdAt",
    }),
    filter: PageQuery().shape.filter.openapi({
      description:
        "`<name>|<operator>|<values>` terms joined by `;` (AND). eq, in: status (PENDING, PAID, FAILED), currency, reference (the bank transfer's variable symbol); " +
        "lt, lteq, eq, gteq, gt, in: createdAt (ISO 8601 with offset, to the second).",
      example: "status|eq|PAID;createdAt|gteq|2026-11-01T00:00:00+01:00",
    }),
  }),
);

export const PayoutIdParam = schema(() =>
  z.object({
    payoutId: z
      .string()
      .max(64)
      .openapi({ param: { name: "payoutId", in: "path" }, example: "01JD5B8W3K2M9N4P7Q1R6S0T5V" }),
  }),
);

export const Payout = schema(() =>
  z
    .object({
      id: z.string(),
      reference: z
        .string()
        .openapi({ description: "10 digits: the variable symbol of the bank transfer", example: "4281187007" }),
      currency: z.string(),
      periodEnd: DateTimeOutput().openapi({
        description: "The cutoff: the payout holds the entries created before it",
      }),
      status: z.enum(PAYOUT_STATUSES).openapi({
        description: "PENDING until the transfer is confirmed PAID, or FAILED (its entries go to the next payout)",
      }),
      totals: z.object(totalsShape()),
      entries: z.number().int().openapi({ description: "How many entries it holds" }),
      createdAt: DateTimeOutput(),
      paidAt: DateTimeOutput().optional(),
    })
    .openapi("Payout"),
);

export const SettlementEntry = schema(() =>
  z
    .object({
      id: z.string(),
      type: z.enum(ENTRY_TYPES).openapi({
        description:
          "SALE (+) when items became payable, FEE (−) and FEE_VAT (−) with each sale, REFUND (−) for every refund",
      }),
      amount: minor("Signed from your side"),
      currency: z.string(),
      applicationId: z.string(),
      orderNumber: z.string(),
      variableSymbols: z.array(z.string()),
      shipmentId: z.string().optional().openapi({ description: "The shipment a sale (and its fees) went out in" }),
      shipmentReference: z.string().optional().openapi({ description: "That shipment's reference, yours" }),
      refundId: z.string().optional(),
      createdAt: DateTimeOutput(),
      payoutId: z.string().optional().openapi({ description: "The payout holding it; absent while open" }),
    })
    .openapi("SettlementEntry"),
);

export const Balance = schema(() =>
  z
    .object({
      data: z.array(
        z
          .object({
            currency: z.string(),
            ...totalsShape(),
            nextCutoffAt: DateTimeOutput().openapi({ description: "When the next payout closes" }),
          })
          .openapi("CurrencyBalance"),
      ),
    })
    .openapi("Balance", { description: "Entries not yet in a payout, per currency (none: an empty list)" }),
);

export const Payment = schema(() =>
  z
    .object({
      paymentId: z.string().openapi({ description: "The PAID payout's id" }),
      date: DateOutput().openapi({ description: "The day it was paid" }),
      applicationId: z.string(),
      value: Money().openapi({ description: "What the application's entries add up to in it" }),
    })
    .openapi("Payment"),
);

export const PaidPayouts = schema(() =>
  z
    .object({ data: z.array(Payout()) })
    .openapi("PaidPayouts", { description: "The payouts closed and paid (none when nothing was positive to pay)" }),
);
