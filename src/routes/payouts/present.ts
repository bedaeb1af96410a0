import { formatDate, formatDateTime } from "../../clock";
import type { PaymentRow } from "../../collections/settlement";
import type { PayoutEntryRow } from "../../db/settlement";
import type { Payout as PayoutRecord } from "../../domain/payouts";
import type { Infer } from "../../lazy-schema";
import type { Payment, Payout, SettlementEntry } from "./schema";

export function presentPayout(payout: PayoutRecord, timeZone: string): Infer<typeof Payout> {
  return {
    id: payout.id,
    reference: payout.reference,
    currency: payout.currency,
    periodEnd: formatDateTime(payout.periodEnd, timeZone),
    status: payout.status,
    totals: payout.totals,
    entries: payout.entries,
    createdAt: formatDateTime(payout.createdAt, timeZone),
    ...(payout.paidAt === null ? {} : { paidAt: formatDateTime(payout.paidAt, timeZone) }),
  };
}

export function presentEntry(entry: PayoutEntryRow, timeZone: string): Infer<typeof SettlementEntry> {
  return {
    id: entry.id,
    type: entry.type,
    amount: entry.amount,
    currency: entry.currency,
    applicationId: entry.applicationId,
    orderNumber: entry.orderNumber,
    variableSymbols: entry.variableSymbols,
    ...(entry.shipmentId === null ? {} : { shipmentId: entry.shipmentId }),
    ...(entry.shipmentReference === null ? {} : { shipmentReference: entry.shipmentReference }),
    ...(entry.refundId === null ? {} : { refundId: entry.refundId }),
    createdAt: formatDateTime(entry.createdAt, timeZone),
    ...(entry.payoutId === null ? {} : { payoutId: entry.payoutId }),
  };
}

export function presentPayment(payment: PaymentRow, applicationId: string, timeZone: string): Infer<typeof Payment> {
  return {
    paymentId: payment.id,
    date: formatDate(payment.paidAt, timeZone),
    applicationId,
    value: { amount: payment.amount, currency: payment.currency },
  };
}
