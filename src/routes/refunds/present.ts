import { formatDateTime } from "../../clock";
import type { RefundRecord } from "../../domain/plan";
import type { Infer } from "../../lazy-schema";
import type { Refund } from "./schema";

type RefundView = Infer<typeof Refund>;

export function presentRefund(refund: Omit<RefundRecord, "applicationId">, timeZone: string): RefundView {
  return {
    id: refund.id,
    origin: refund.origin,
    totalPrice: { amount: refund.amount, currency: refund.currency },
    ...(refund.reason ? { reason: refund.reason } : {}),
    ...(refund.variableSymbol ? { variableSymbol: refund.variableSymbol } : {}),
    createdAt: formatDateTime(refund.createdAt, timeZone),
  };
}
