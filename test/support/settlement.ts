/** The settlement side of an application in tests of src/domain: its terms and order, what a plan settled. */

import type { PartnerTerms } from "../../src/domain/partner-terms";
import { applyPlan, type Current, type Plan } from "../../src/domain/plan";
import type { SettledApplication, SettlementEntry } from "../../src/domain/settlement-entries";
import type { Shipment } from "../../src/domain/shipments";

/** The application under other terms, or of another order or partner, as settlement reads it. */
export function settledAs(
  current: Current,
  change: { terms?: PartnerTerms; application?: Partial<SettledApplication> },
): Current {
  const { settlement } = current;
  const application = { ...settlement.application, ...change.application };
  return {
    ...current,
    application: { ...current.application, id: application.id, type: application.type },
    settlement: { ...settlement, application, terms: change.terms ?? settlement.terms },
  };
}

/** An accepted plan applied, with the shipment it made (if it sent anything) and the entries it adds. */
export function settle(
  current: Current,
  plan: Plan,
): { current: Current; shipment: Shipment | undefined; entries: SettlementEntry[] } {
  return { current: applyPlan(current, plan), shipment: plan.shipment, entries: plan.entries ?? [] };
}
