/** The settlement side of an operation, as the write path will add it: for tests of src/domain. */

import type { PartnerTerms } from "../../src/domain/partner-terms";
import { applyPlan, type Current, type Plan, type PlanContext } from "../../src/domain/plan";
import { type SettledApplication, type SettlementEntry, settlementEntries } from "../../src/domain/settlement-entries";
import { type Shipment, sentBy, shipmentOf } from "../../src/domain/shipments";

/** The application as settlement reads it, with the order's carrier. */
export function settled(
  current: Current,
  partnerId = "partner-1",
): SettledApplication & { deliveryCarrier: { carrierId: string } | null } {
  const { id, type, currency } = current.application;
  return {
    id,
    partnerId,
    type: type as SettledApplication["type"],
    currency,
    orderNumber: `ORDER-${id}`,
    variableSymbols: ["2026001"],
    deliveryCarrier: { carrierId: "PPL" },
  };
}

/**
 * An accepted plan applied, with the shipment of what it sent (if it sent anything) and the entries it
 * adds; `shipments` are the application's before the operation.
 */
export function settle(
  current: Current,
  plan: Plan,
  shipments: readonly Shipment[],
  terms: PartnerTerms,
  ctx: Pick<PlanContext, "at" | "newId">,
  request: { reference?: string; deliveryTrackingNumber?: string } = {},
  application = settled(current),
): { current: Current; shipment: Shipment | undefined; entries: SettlementEntry[] } {
  const after = applyPlan(current, plan);
  const shipment = shipmentOf(sentBy(current.lines, after.lines), request, application, ctx);
  const entries = settlementEntries(
    application,
    {
      before: current.lines,
      after: after.lines,
      refund: plan.refund,
      shipments: shipment ? [...shipments, shipment] : shipments,
    },
    terms,
    ctx,
  );
  return { current: after, shipment, entries };
}
